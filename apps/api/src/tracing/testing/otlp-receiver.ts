import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One span of an OTLP/JSON export request, with the fields the tests read. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 2 server, 3 client (OTLP's SpanKind numbers). */
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
  serviceName: string | undefined;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<Omit<ExportedSpan, "attributes" | "serviceName"> & { attributes?: KeyValue[] }>;
    }>;
  }>;
}

const attributes = (list: KeyValue[] = []) =>
  Object.fromEntries(
    list.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue === undefined ? undefined : Number(value.intValue)) ??
        value.boolValue ??
        value.doubleValue,
    ]),
  );

/**
 * A trace collector on a loopback port that accepts OTLP/HTTP JSON exports (POST /v1/traces), as
 * an OpenTelemetry Collector would, and keeps every span and raw body it received.
 */
export class OtlpReceiver {
  readonly spans: ExportedSpan[] = [];
  readonly bodies: string[] = [];

  private constructor(private readonly server: Server) {}

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  static async start(): Promise<OtlpReceiver> {
    const receiver: OtlpReceiver = new OtlpReceiver(
      createServer((request, response) => {
        let body = "";
        request.setEncoding("utf8");
        request.on("data", (chunk: string) => {
          body += chunk;
        });
        request.on("end", () => {
          if (request.method === "POST" && request.url === "/v1/traces") receiver.receive(body);
          response.writeHead(request.url === "/v1/traces" ? 200 : 404, { "Content-Type": "application/json" });
          response.end("{}");
        });
      }),
    );
    await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
    return receiver;
  }

  private receive(body: string): void {
    this.bodies.push(body);
    for (const resourceSpans of (JSON.parse(body) as ExportRequest).resourceSpans ?? []) {
      const resource = attributes(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            ...span,
            attributes: attributes(span.attributes),
            serviceName: resource["service.name"] as string | undefined,
          });
        }
      }
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
