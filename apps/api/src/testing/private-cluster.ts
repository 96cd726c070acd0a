import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { appendFileSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SqlSession } from "@community/db/testing";
import { freePort } from "./free-port";
import { answers, CLUSTER_PORTS_FROM, postgresUser, serverPrograms, urlOf } from "./streaming-replica";

/**
 * A throw-away PostgreSQL cluster of its own (initdb, on a free loopback port, as the `postgres`
 * user when run as root) with an empty `community` database: a "new cluster" to restore a dump
 * into, whose transaction counter starts where a fresh cluster's does.
 */
export interface PrivateCluster {
  /** The `community` database. */
  url: string;
  stop(): Promise<void>;
}

export async function startPrivateCluster(): Promise<PrivateCluster> {
  const bin = serverPrograms();
  const user = postgresUser();
  const dir = mkdtempSync(path.join(tmpdir(), "community-cluster-"));
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const as = { ...user, stdio: "ignore" as const };
  let server: ChildProcess | undefined;
  const stop = async () => {
    const child = server;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGINT");
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const dataDir = path.join(dir, "data");
    execFileSync(
      path.join(bin, "initdb"),
      ["-D", dataDir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
      as,
    );
    appendFileSync(
      path.join(dataDir, "postgresql.conf"),
      [
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        "fsync = off",
        "shared_buffers = 32MB",
        "",
      ].join("\n"),
    );
    const port = await freePort(CLUSTER_PORTS_FROM);
    server = spawn(path.join(bin, "postgres"), ["-D", dataDir, "-p", `${port}`], as);
    await answers(urlOf(port, "postgres"), Date.now() + 60_000, "the private cluster");
    const admin = await SqlSession.open(urlOf(port, "postgres"));
    await admin.query("CREATE DATABASE community");
    await admin.close();
    return { url: urlOf(port), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** pg_dump of `url` in the custom format, into `file`. */
export function dumpDatabase(url: string, file: string): void {
  execFileSync(path.join(serverPrograms(), "pg_dump"), ["-Fc", "-f", file, "-d", url], { stdio: "ignore" });
}

/** pg_restore of `file` into `url`, replacing what is there (`--clean`): the database as it was dumped. */
export function restoreDatabase(file: string, url: string): void {
  execFileSync(
    path.join(serverPrograms(), "pg_restore"),
    ["--clean", "--if-exists", "--no-owner", "--exit-on-error", "-d", url, file],
    { stdio: "ignore" },
  );
}
