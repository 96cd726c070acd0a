import type { IncomingMessage } from "node:http";

const TRACE_ID = Symbol("traceId");
type WithTraceId = { [TRACE_ID]?: string };

/** Remembers the trace a request belongs to, for its log line (set by the server span's hook). */
export function setRequestTraceId(request: IncomingMessage, traceId: string): void {
  (request as WithTraceId)[TRACE_ID] = traceId;
}

/** The request's trace id; undefined while tracing is off. Loads nothing of OpenTelemetry. */
export function requestTraceId(request: IncomingMessage): string | undefined {
  return (request as WithTraceId)[TRACE_ID];
}
