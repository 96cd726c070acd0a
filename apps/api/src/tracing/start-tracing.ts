import { IncomingMessage } from "node:http";
import { context, type DiagLogger, DiagLogLevel, diag, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { ExpressInstrumentation, ExpressLayerType } from "@opentelemetry/instrumentation-express";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { redactSecretPaths } from "../common/secret-paths";
import type { TracingConfig } from "../config/config";
import { setRequestTraceId } from "./request-trace";

/** Probes are polled every few seconds by every balancer and scraper: no trace for them. */
const UNTRACED_PATHS = new Set(["/health/live", "/health/ready", "/metrics"]);
/** Query parameters whose values never reach a span (url.query), whatever a client sends. */
const REDACTED_QUERY_PARAMS = ["access_token", "refresh_token", "id_token_hint", "token", "code", "client_secret"];

export interface Tracing {
  /** Sends the spans still waiting in the batch, then stops. */
  shutdown(): Promise<void>;
}

function sampler(config: TracingConfig): Sampler {
  const root =
    config.ratio >= 1
      ? new AlwaysOnSampler()
      : config.ratio <= 0
        ? new AlwaysOffSampler()
        : new TraceIdRatioBasedSampler(config.ratio);
  return config.parentBased ? new ParentBasedSampler({ root }) : root;
}

/** The SDK's own warnings (an unreachable collector, dropped spans) as JSON lines on stderr. */
const diagLogger = (): DiagLogger => {
  const write =
    (level: string) =>
    (message: string, ...args: unknown[]) =>
      process.stderr.write(
        `${JSON.stringify({ level, time: new Date().toISOString(), context: "Tracing", msg: [message, ...args.map(String)].join(" ") })}\n`,
      );
  const ignore = () => undefined;
  return { error: write("error"), warn: write("warn"), info: ignore, debug: ignore, verbose: ignore };
};

/**
 * Starts OpenTelemetry tracing: W3C trace context in, a server span per request (http + express
 * instrumentations), a client span per SQL statement (pg instrumentation), spans batched to an
 * OTLP/HTTP collector. Must run before express and pg are first required: the instrumentations
 * hook `require`.
 */
export function startTracing(config: TracingConfig): Tracing {
  diag.setLogger(diagLogger(), DiagLogLevel.WARN);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName }),
    sampler: sampler(config),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: config.url }),
        scheduledDelayMillis: config.batchDelayMs,
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has(request.url?.split("?")[0] ?? ""),
        // The api's own outgoing calls go through fetch; this only spares the exporter's requests.
        disableOutgoingRequestInstrumentation: true,
        redactedQueryParamsServer: REDACTED_QUERY_PARAMS,
        requestHook: (span, request) => {
          if (!(request instanceof IncomingMessage)) return;
          setRequestTraceId(request, span.spanContext().traceId);
          // A calendar feed's path is its secret: the span keeps the path with it replaced.
          const url = request.url ?? "";
          const redacted = redactSecretPaths(url);
          if (redacted !== url) {
            const host = request.headers.host ?? "";
            span.setAttributes({
              "http.target": redacted,
              "url.path": redacted.split("?")[0] ?? redacted,
              "http.url": `http://${host}${redacted}`,
              "url.full": `http://${host}${redacted}`,
            });
          }
        },
      }),
      // Request handlers only (the matched route names the server span): no span for each of the
      // global middlewares, which would cost more than it tells. Nest's own middleware (applied
      // in modules' configure()) is mounted as a handler on every path and keeps its span.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    ],
  });
  return {
    async shutdown() {
      unregister();
      await provider.shutdown();
    },
  };
}
