import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type TestDatabase } from "@community/db/testing";
import {
  ApiProcess,
  COMPILED_MAIN,
  contractFixture,
  createLoadedTestDatabase,
  TOKENS,
} from "@community/fixtures/testing";
import { type ExportedSpan, OtlpReceiver } from "./testing/otlp-receiver";

const EVENTS = "/v1/me/community/team/events";
const SERVER = 2;
const CLIENT = 3;

/**
 * A preload that writes, as the process exits, one JSON line naming every OpenTelemetry package
 * in require.cache: what the api loaded while it ran.
 */
const LOADED_PACKAGES_PRELOAD = `
process.on("exit", () => {
  const names = new Set();
  for (const file of Object.keys(require.cache)) {
    const match = /.*node_modules\\/(@opentelemetry\\/[^/]+)\\//.exec(file);
    if (match) names.add(match[1]);
  }
  process.stdout.write(JSON.stringify({ msg: "loaded packages", packages: [...names].sort() }) + "\\n");
});
`;

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/** The SQL text of a span, under either generation of the database semantic conventions. */
const sqlOf = (span: ExportedSpan) => String(span.attributes["db.query.text"] ?? span.attributes["db.statement"] ?? "");

describe("tracing", () => {
  let testDb: TestDatabase;
  let dir: string;
  let preload: string;

  beforeAll(async () => {
    testDb = await createLoadedTestDatabase("tracing", contractFixture());
    dir = await mkdtemp(path.join(tmpdir(), "tracing-e2e-"));
    preload = path.join(dir, "loaded-packages.cjs");
    await writeFile(preload, LOADED_PACKAGES_PRELOAD);
  });

  afterAll(async () => {
    await testDb?.drop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** Runs the compiled api, sends one list request with `traceparent`, stops the api (SIGTERM). */
  async function oneRequest(env: NodeJS.ProcessEnv, traceparent: string) {
    const api = new ApiProcess({ DATABASE_URL: testDb.url, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info", ...env }, [
      "--require",
      preload,
      COMPILED_MAIN,
    ]);
    try {
      const port = await api.listening();
      const response = await fetch(`http://127.0.0.1:${port}${EVENTS}?per_page=2`, {
        headers: { Authorization: `Bearer ${TOKENS.runner}`, traceparent },
      });
      expect(response.status).toBe(200);
      const requestId = response.headers.get("x-request-id");
      // A calendar feed's path carries its secret (contract 11.2): no span may.
      const feedSecret = `cal_${randomBytes(32).toString("base64url")}`;
      const feed = await fetch(`http://127.0.0.1:${port}/v1/calendar-feeds/${feedSecret}.ics`, {
        headers: { traceparent },
      });
      expect(feed.status).toBe(404);
      // The authorization server: oidc-provider, an ES module loaded with import().
      const discovery = await fetch(`http://127.0.0.1:${port}/oauth/.well-known/openid-configuration`);
      api.kill("SIGTERM");
      expect(await api.exited).toBe(0);
      const entries = api.entries();
      return {
        line: entries.find((entry) => entry.requestId === requestId && entry.msg === "request completed"),
        packages: entries.find((entry) => entry.msg === "loaded packages")?.packages as string[],
        stderr: api.stderr,
        discoveryStatus: discovery.status,
        feedSecret,
      };
    } finally {
      api.kill("SIGKILL");
    }
  }

  describe("on (OTEL_EXPORTER_OTLP_ENDPOINT set)", () => {
    let receiver: OtlpReceiver;
    const traceId = hex(16);
    const parentSpanId = hex(8);
    let result: Awaited<ReturnType<typeof oneRequest>>;

    beforeAll(async () => {
      receiver = await OtlpReceiver.start();
      // A batch delay far beyond the test: the spans arrive only because SIGTERM flushes them.
      result = await oneRequest(
        { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: "600000" },
        `00-${traceId}-${parentSpanId}-01`,
      );
    });

    afterAll(async () => {
      await receiver?.close();
    });

    const server = () => receiver.spans.find((span) => span.kind === SERVER && span.traceId === traceId);

    it("exports over OTLP/HTTP a server span that continues the caller's trace", () => {
      expect(server()).toMatchObject({
        traceId,
        parentSpanId,
        name: `GET ${EVENTS}`,
        serviceName: "community-team-api",
        attributes: expect.objectContaining({ "http.route": EVENTS, "http.response.status_code": 200 }),
      });
    });

    it("exports a span for the token lookup and for the page statement, under the server span", () => {
      const serverSpan = server();
      if (serverSpan === undefined) throw new Error(`no server span in ${JSON.stringify(receiver.spans)}`);
      const byId = new Map(receiver.spans.map((span) => [span.spanId, span]));
      const underServer = (span: ExportedSpan): boolean => {
        for (let parent = span.parentSpanId; parent !== undefined && parent !== ""; ) {
          if (parent === serverSpan.spanId) return true;
          parent = byId.get(parent)?.parentSpanId;
        }
        return false;
      };
      const sql = receiver.spans.filter((span) => span.kind === CLIENT && span.traceId === traceId);
      const tokenLookup = sql.filter((span) => /FROM access_tokens/.test(sqlOf(span)));
      const page = sql.filter(
        (span) => /FROM team_list_stats/.test(sqlOf(span)) && /LIMIT \$2 OFFSET \$3/.test(sqlOf(span)),
      );
      expect(tokenLookup).toHaveLength(1);
      expect(page).toHaveLength(1);
      for (const span of [...tokenLookup, ...page]) {
        expect(underServer(span)).toBe(true);
        expect(span.attributes["db.system.name"] ?? span.attributes["db.system"]).toBe("postgresql");
      }
    });

    it("never exports the bearer token or the statements' parameter values", () => {
      const exported = receiver.bodies.join("\n");
      expect(exported).not.toContain(TOKENS.runner);
      expect(exported).not.toContain("Bearer");
      expect(exported).not.toContain("user_runner");
    });

    it("exports a calendar feed's path with its secret replaced", () => {
      const exported = receiver.bodies.join("\n");
      expect(exported).not.toContain(result.feedSecret);
      expect(exported).not.toContain(result.feedSecret.slice(4, 24));
      expect(exported).toContain("/v1/calendar-feeds/REDACTED.ics");
    });

    it("leaves the ES module path working: the authorization server answers", () => {
      expect(result.discoveryStatus).toBe(200);
    });

    it("writes the trace id in the request's log line", () => {
      expect(result.line).toMatchObject({ status: 200, traceId });
    });

    it("loads the SDK and the instrumentations (the probe of the test below works)", () => {
      expect(result.packages).toEqual(
        expect.arrayContaining([
          "@opentelemetry/sdk-trace",
          "@opentelemetry/instrumentation-http",
          "@opentelemetry/instrumentation-express",
          "@opentelemetry/instrumentation-pg",
          "@opentelemetry/exporter-trace-otlp-http",
        ]),
      );
      expect(result.stderr).toBe("");
    });
  });

  describe("off (no exporter configured)", () => {
    let result: Awaited<ReturnType<typeof oneRequest>>;

    beforeAll(async () => {
      result = await oneRequest({}, `00-${hex(16)}-${hex(8)}-01`);
    });

    it("loads no OpenTelemetry SDK or instrumentation module", () => {
      expect(result.packages).toBeDefined();
      // prom-client itself loads @opentelemetry/api (a no-op without an SDK) for its exemplars.
      expect(result.packages.filter((name) => name !== "@opentelemetry/api")).toEqual([]);
    });

    it("writes no trace id in the request's log line, even when the caller sent traceparent", () => {
      expect(result.line).toBeDefined();
      expect(result.line).not.toHaveProperty("traceId");
    });
  });
});
