export * from "./client.ts";
export type * from "./collection.ts";
export * from "./errors.ts";
export { parseRetryAfter } from "./retry-after.ts";
export * from "./wire.ts";
