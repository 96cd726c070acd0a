import { Client, type ClientConfig, Pool, type PoolConfig } from "pg";

/**
 * Connections of their own, outside `createDatabase`'s pools, that hear their own 'error'.
 *
 * pg's Client emits 'error' whenever its connection ends unexpectedly, even while a query is
 * waiting (the query is failed with the same error too). With no listener, that emit throws out of
 * the socket's handler and ends the process: a database restart, failover or network cut would
 * take the service down instead of failing one statement. A pool listens to its idle connections
 * only: one checked out with `pool.connect()` has no listener of the pool's. `createDatabase`'s
 * connections hear it in `WatchedClient`; every other connection of the service is made here (a
 * test, standalone-client.spec.ts, holds the source to that).
 *
 * `onError` is told of the loss; by default it is ignored, since the failed query or `connect()`
 * already carries the error to whoever waits.
 */
export function standaloneClient(config: ClientConfig, onError: (error: Error) => void = ignore): Client {
  const client = new Client(config);
  client.on("error", onError);
  return client;
}

/** A pool whose every connection, idle or checked out, hears its own 'error' (see standaloneClient). */
export function standalonePool(config: PoolConfig, onError: (error: Error) => void = ignore): Pool {
  const pool = new Pool(config);
  pool.on("error", onError);
  pool.on("connect", (client) => client.on("error", onError));
  return pool;
}

function ignore(): void {}
