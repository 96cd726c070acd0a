export * from "./client.ts";
export type * from "./collection.ts";
export * from "./errors.ts";
export { LIVE_DEFAULTS } from "./follow.ts";
export type { Sleep } from "./pause.ts";
export { parseRetryAfter } from "./retry-after.ts";
export { type VerifyWebhookNoticeOptions, verifyWebhookNotice } from "./webhook.ts";
export * from "./wire.ts";
