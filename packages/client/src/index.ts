export * from "./client";
export * from "./errors";
export { parseRetryAfter } from "./retry-after";
