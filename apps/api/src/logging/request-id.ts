import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

export const REQUEST_ID_HEADER = "X-Request-Id";
/** What an upstream proxy may hand us: a UUID or similar token, never arbitrary text for the logs. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export type RequestWithId = IncomingMessage & { id?: string };

/**
 * The caller's X-Request-Id when it is well formed, else a new UUID; echoed on every response.
 * The request logger's first step (its genReqId), so every log line of the request carries it.
 */
export function assignRequestId(request: IncomingMessage, response: ServerResponse): string {
  const sent = request.headers["x-request-id"];
  const id = typeof sent === "string" && ACCEPTABLE_ID.test(sent) ? sent : randomUUID();
  response.setHeader(REQUEST_ID_HEADER, id);
  return id;
}
