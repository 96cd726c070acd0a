import { appendFileSync, chownSync, mkdirSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { Client } from "pg";
import { freePort, type RunAs, run, type Service, type Supervisor, waitFor } from "./processes";

/** What the check needs from the machine; none of it is installed by the check itself. */
export interface Binaries {
  pgBin: string;
  pgbouncer: string;
  haproxy: string;
  redis: string;
}

/** PostgreSQL connection URLs of a server on loopback. */
export const postgresUrl = (port: number, database = "community") =>
  `postgresql://postgres@127.0.0.1:${port}/${database}`;

async function answers(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function ownedDir(dir: string, runAs: RunAs | undefined): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (runAs !== undefined) chownSync(dir, runAs.uid, runAs.gid);
  return dir;
}

export interface Postgres {
  port: number;
  service: Service;
}

/** The PostgreSQL server of a data directory, stopped by SIGINT (a fast shutdown). */
function startPostgres(
  bin: Binaries,
  supervisor: Supervisor,
  name: string,
  dataDir: string,
  port: number,
  runAs: RunAs | undefined,
): Service {
  return supervisor.start(name, path.join(bin.pgBin, "postgres"), ["-D", dataDir, "-p", `${port}`], {
    runAs,
    stopSignal: "SIGINT",
  });
}

/** A primary: its own data directory, loopback only, WAL for a streaming replica, commit timestamps for the lag. */
export async function startPrimary(
  bin: Binaries,
  supervisor: Supervisor,
  workDir: string,
  runAs: RunAs | undefined,
): Promise<Postgres> {
  const dataDir = path.join(ownedDir(path.join(workDir, "pg"), runAs), "primary");
  const port = await freePort();
  run(path.join(bin.pgBin, "initdb"), ["-D", dataDir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"], {
    runAs,
  });
  appendFileSync(
    path.join(dataDir, "postgresql.conf"),
    [
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${path.dirname(dataDir)}'`,
      "wal_level = replica",
      "max_wal_senders = 4",
      "track_commit_timestamp = on",
      // A throw-away cluster: durability buys nothing here, and the disk is shared.
      "fsync = off",
      "shared_buffers = 32MB",
      "",
    ].join("\n"),
  );
  const service = startPostgres(bin, supervisor, "postgres-primary", dataDir, port, runAs);
  await waitFor("the primary PostgreSQL", () => answers(postgresUrl(port, "postgres")), 30_000);
  const admin = new Client({ connectionString: postgresUrl(port, "postgres") });
  await admin.connect();
  await admin.query("CREATE DATABASE community");
  await admin.end();
  return { port, service };
}

/** A hot standby streaming from the primary (`pg_basebackup -R` writes its primary_conninfo). */
export async function startReplica(
  bin: Binaries,
  supervisor: Supervisor,
  workDir: string,
  runAs: RunAs | undefined,
  primary: Postgres,
): Promise<Postgres> {
  const dataDir = path.join(workDir, "pg", "replica");
  const port = await freePort();
  run(
    path.join(bin.pgBin, "pg_basebackup"),
    [
      "-h",
      "127.0.0.1",
      "-p",
      `${primary.port}`,
      "-U",
      "postgres",
      "-D",
      dataDir,
      "-R",
      "-X",
      "stream",
      "--checkpoint=fast",
      "--no-sync",
    ],
    { runAs },
  );
  const service = startPostgres(bin, supervisor, "postgres-replica", dataDir, port, runAs);
  await waitFor("the replica PostgreSQL", () => answers(postgresUrl(port)), 30_000);
  const client = new Client({ connectionString: postgresUrl(port) });
  await client.connect();
  const { rows } = await client.query<{ standby: boolean }>("SELECT pg_is_in_recovery() AS standby");
  await client.end();
  if (rows[0]?.standby !== true) throw new Error("the replica is not in recovery: it does not stream from the primary");
  return { port, service };
}

export interface PgBouncer {
  name: string;
  port: number;
  service: Service;
  configFile: string;
}

/**
 * PgBouncer in transaction mode. The api's driver sends statement_timeout (and may send
 * lock_timeout) as startup parameters, which PgBouncer refuses unless told to ignore them; the
 * server connections then get the timeout from `connect_query` instead (or from
 * `ALTER ROLE ... SET statement_timeout`), so the limit still holds (docs/scale-check.md).
 */
export async function startPgBouncer(
  bin: Binaries,
  supervisor: Supervisor,
  workDir: string,
  runAs: RunAs | undefined,
  name: string,
  upstream: Postgres,
): Promise<PgBouncer> {
  const dir = ownedDir(path.join(workDir, name), runAs);
  const port = await freePort();
  const configFile = path.join(dir, "pgbouncer.ini");
  writeFileSync(path.join(dir, "userlist.txt"), '"postgres" ""\n');
  writeFileSync(
    configFile,
    [
      "[databases]",
      `community = host=127.0.0.1 port=${upstream.port} dbname=community user=postgres connect_query='SET statement_timeout = 5000'`,
      "",
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "userlist.txt")}`,
      "pool_mode = transaction",
      "max_client_conn = 500",
      "default_pool_size = 20",
      "ignore_startup_parameters = statement_timeout,lock_timeout,idle_in_transaction_session_timeout",
      // Reconnect to a server that went away within a second, not the default 15 s.
      "server_login_retry = 1",
      "",
    ].join("\n"),
  );
  if (runAs !== undefined) chownSync(configFile, runAs.uid, runAs.gid);
  const bouncer = { name, port, configFile, service: undefined as unknown as Service };
  await restartPgBouncer(bin, supervisor, bouncer, runAs);
  return bouncer;
}

/** Starts (again) the PgBouncer described by `bouncer`, on the same port. */
export async function restartPgBouncer(
  bin: Binaries,
  supervisor: Supervisor,
  bouncer: PgBouncer,
  runAs: RunAs | undefined,
): Promise<void> {
  bouncer.service = supervisor.start(bouncer.name, bin.pgbouncer, [bouncer.configFile], { runAs });
  await waitFor(`${bouncer.name} on port ${bouncer.port}`, () => answers(postgresUrl(bouncer.port)), 15_000, 50);
}

export async function startRedis(bin: Binaries, supervisor: Supervisor): Promise<{ port: number; service: Service }> {
  const port = await freePort();
  const service = supervisor.start("redis", bin.redis, [
    "--port",
    `${port}`,
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
  ]);
  await waitFor("Redis", () => tcpAnswers(port), 10_000, 50);
  return { port, service };
}

export function tcpAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
