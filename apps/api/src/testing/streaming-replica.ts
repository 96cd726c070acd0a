import { execFileSync } from "node:child_process";
import path from "node:path";
import type { SqlSession } from "@community/db/testing";
import { freePort } from "./free-port";
import { answers, CLUSTER_PORTS_FROM, serverHome, startCluster, urlOf } from "./private-cluster";

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

export async function startStreamingPair(): Promise<StreamingPair> {
  const home = serverHome("community-streaming-");
  try {
    const deadline = Date.now() + 60_000;
    const primaryPort = await startCluster(home, "primary", ["wal_level = replica", "max_wal_senders = 4"], deadline);
    const replicaDir = path.join(home.dir, "replica");
    execFileSync(
      path.join(home.bin, "pg_basebackup"),
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
      home.as,
    );
    const replicaPort = await freePort(CLUSTER_PORTS_FROM);
    home.start(replicaDir, replicaPort);
    await answers(urlOf(replicaPort), deadline, "the standby");
    return { primaryUrl: urlOf(primaryPort), replicaUrl: urlOf(replicaPort), stop: () => home.stop() };
  } catch (error) {
    await home.stop();
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
