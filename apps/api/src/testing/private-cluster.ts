import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { appendFileSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SqlSession } from "@community/db/testing";
import { freePort } from "./free-port";

/**
 * Throw-away PostgreSQL servers of the tests' own, on loopback, made with the server programs of
 * the machine's PostgreSQL (initdb, postgres; as the `postgres` user when run as root, since the
 * servers refuse root): a private cluster here, a primary and its streaming standby in
 * streaming-replica.ts.
 */
export interface PrivateCluster {
  /** The `community` database. */
  url: string;
  stop(): Promise<void>;
}

/** Private clusters listen above this port. */
export const CLUSTER_PORTS_FROM = 55_001;

export const urlOf = (port: number, database = "community") => `postgresql://postgres@127.0.0.1:${port}/${database}`;

/** The newest /usr/lib/postgresql/<version>/bin (PG_BIN overrides it). */
export function serverPrograms(): string {
  if (process.env.PG_BIN !== undefined) return process.env.PG_BIN;
  const versions = readdirSync("/usr/lib/postgresql")
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  if (versions[0] === undefined) throw new Error("no PostgreSQL server programs in /usr/lib/postgresql (set PG_BIN)");
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

export function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const entry = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((line) => line.startsWith("postgres:"));
  const [, , uid, gid] = entry?.split(":") ?? [];
  if (uid === undefined || gid === undefined) throw new Error("running as root without a `postgres` user");
  return { uid: Number(uid), gid: Number(gid) };
}

export async function answers(url: string, deadline: number, what: string): Promise<void> {
  for (;;) {
    try {
      const session = await SqlSession.open(url);
      await session.close();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what} did not answer: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A temporary directory for throw-away servers (the `postgres` user's when run as root) and the servers started in it. */
export interface ServerHome {
  bin: string;
  dir: string;
  as: { uid?: number; gid?: number; stdio: "ignore" };
  /** Starts `postgres` on the data directory `dataDir`, on `port`. */
  start(dataDir: string, port: number): void;
  /** Stops every server started here (a fast shutdown) and removes the directory. */
  stop(): Promise<void>;
}

export function serverHome(prefix: string): ServerHome {
  const bin = serverPrograms();
  const user = postgresUser();
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const as = { ...user, stdio: "ignore" as const };
  const servers: ChildProcess[] = [];
  return {
    bin,
    dir,
    as,
    start(dataDir, port) {
      servers.push(spawn(path.join(bin, "postgres"), ["-D", dataDir, "-p", `${port}`], as));
    },
    async stop() {
      await Promise.all(
        servers.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once("exit", () => resolve());
              // A fast shutdown.
              child.kill("SIGINT");
            }),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A new cluster in `home`'s directory `name` (initdb, with `settings` beside the throw-away ones),
 * started on a free port with an empty `community` database, answering before `deadline`: its port.
 */
export async function startCluster(
  home: ServerHome,
  name: string,
  settings: string[],
  deadline: number,
): Promise<number> {
  const dataDir = path.join(home.dir, name);
  execFileSync(
    path.join(home.bin, "initdb"),
    ["-D", dataDir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
    home.as,
  );
  appendFileSync(
    path.join(dataDir, "postgresql.conf"),
    [
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${home.dir}'`,
      ...settings,
      // A throw-away cluster: durability buys nothing here.
      "fsync = off",
      "shared_buffers = 32MB",
      "",
    ].join("\n"),
  );
  const port = await freePort(CLUSTER_PORTS_FROM);
  home.start(dataDir, port);
  await answers(urlOf(port, "postgres"), deadline, `the cluster in ${name}`);
  const admin = await SqlSession.open(urlOf(port, "postgres"));
  await admin.query("CREATE DATABASE community");
  await admin.close();
  return port;
}

/**
 * A throw-away cluster of its own with an empty `community` database: a "new cluster" to restore a
 * dump into, whose transaction counter starts where a fresh cluster's does.
 */
export async function startPrivateCluster(): Promise<PrivateCluster> {
  const home = serverHome("community-cluster-");
  try {
    const port = await startCluster(home, "data", [], Date.now() + 60_000);
    return { url: urlOf(port), stop: () => home.stop() };
  } catch (error) {
    await home.stop();
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
