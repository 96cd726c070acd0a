import { loadTracingConfig } from "../config/config";
import type { Tracing } from "./start-tracing";

function startIfConfigured(): Tracing | undefined {
  const config = loadTracingConfig(process.env);
  if (config === undefined) return undefined;
  // Required only when tracing is on: with it off, no OpenTelemetry SDK or instrumentation loads.
  const { startTracing } = require("./start-tracing") as typeof import("./start-tracing");
  return startTracing(config);
}

/**
 * Tracing, started as this module is first imported: main.ts imports it before anything else, so
 * that the instrumentations hook http, express and pg before those are first required.
 */
export const tracing = startIfConfigured();
