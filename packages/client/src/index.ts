export * from "./client.ts";
export * from "./errors.ts";
export { parseRetryAfter } from "./retry-after.ts";
export type { SyncOptions, SyncResult, SyncStore } from "./sync.ts";
export * from "./wire.ts";
