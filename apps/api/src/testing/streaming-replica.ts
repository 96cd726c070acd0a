import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { appendFileSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SqlSession } from "@community/db/testing";
import { freePort } from "./free-port";

/**
 * A throw-away PostgreSQL primary and a hot standby streaming from it, on loopback, made with the
 * server programs of the machine's PostgreSQL (initdb, pg_basebackup, postgres). A test pauses the
 * standby's replay (`pg_wal_replay_pause()`) to make it lag for as long as it needs. Run as root,
 * the servers run as the `postgres` user (they refuse root).
 */
export interface StreamingPair {
  /** The `community` database on the primary and on the standby. */
  primaryUrl: string;
  replicaUrl: string;
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

export async function startStreamingPair(): Promise<StreamingPair> {
  const bin = serverPrograms();
  const user = postgresUser();
  const dir = mkdtempSync(path.join(tmpdir(), "community-streaming-"));
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const as = { ...user, stdio: "ignore" as const };
  const servers: ChildProcess[] = [];
  const start = (dataDir: string, port: number) => {
    const child = spawn(path.join(bin, "postgres"), ["-D", dataDir, "-p", `${port}`], as);
    servers.push(child);
    return child;
  };
  const stop = async () => {
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
  };
  try {
    const primaryDir = path.join(dir, "primary");
    execFileSync(
      path.join(bin, "initdb"),
      ["-D", primaryDir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
      as,
    );
    appendFileSync(
      path.join(primaryDir, "postgresql.conf"),
      [
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        "wal_level = replica",
        "max_wal_senders = 4",
        // A throw-away cluster: durability buys nothing here.
        "fsync = off",
        "shared_buffers = 32MB",
        "",
      ].join("\n"),
    );
    const primaryPort = await freePort(CLUSTER_PORTS_FROM);
    start(primaryDir, primaryPort);
    const deadline = Date.now() + 60_000;
    await answers(urlOf(primaryPort, "postgres"), deadline, "the primary");
    const admin = await SqlSession.open(urlOf(primaryPort, "postgres"));
    await admin.query("CREATE DATABASE community");
    await admin.close();
    const replicaDir = path.join(dir, "replica");
    execFileSync(
      path.join(bin, "pg_basebackup"),
      [
        "-h",
        "127.0.0.1",
        "-p",
        `${primaryPort}`,
        "-U",
        "postgres",
        "-D",
        replicaDir,
        "-R",
        "-X",
        "stream",
        "--checkpoint=fast",
      ],
      as,
    );
    const replicaPort = await freePort(CLUSTER_PORTS_FROM);
    start(replicaDir, replicaPort);
    await answers(urlOf(replicaPort), deadline, "the standby");
    return { primaryUrl: urlOf(primaryPort), replicaUrl: urlOf(replicaPort), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits until the standby has replayed everything the primary has written so far. */
export async function replayed(primary: SqlSession, standby: SqlSession): Promise<void> {
  const { rows } = await primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
  const lsn = rows[0]?.lsn;
  for (let i = 0; i < 600; i++) {
    const { rows: caught } = await standby.query<{ done: boolean }>(
      "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done",
      [lsn],
    );
    if (caught[0]?.done === true) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the standby did not replay up to ${lsn} in 30 s`);
}

/** Pauses the standby's replay and waits until it has stopped (a pause is only requested at first). */
export async function pauseReplay(standby: SqlSession): Promise<void> {
  await standby.query("SELECT pg_wal_replay_pause()");
  for (let i = 0; i < 600; i++) {
    const { rows } = await standby.query<{ state: string }>("SELECT pg_get_wal_replay_pause_state() AS state");
    if (rows[0]?.state === "paused") return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the standby's replay did not pause in 30 s");
}
