import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { wireEvent } from "@community/domain/testing";
import { buildOpenApiDocument } from "../openapi/openapi-document";
import { takeContractViolations, watchContract } from "./contract-recorder";
import { type ObservedResponse, OpenApiContract } from "./openapi-contract";

const contract = new OpenApiContract(buildOpenApiDocument());
const EVENTS = "/v1/me/community/team/events";

const event = wireEvent({ cover_url: "https://images.example.com/a.jpg" });

const page = (items: unknown[]) => ({
  guides: items,
  meta: { pagination: { current_page: 1, per_page: 100, total_pages: 1 } },
});

function ok(overrides: Partial<ObservedResponse> & { json?: unknown } = {}): ObservedResponse {
  const { json, ...rest } = overrides;
  return {
    method: "GET",
    url: `${EVENTS}?page=1`,
    status: 200,
    headers: {
      "content-type": "application/json; charset=utf-8",
      link: `<${EVENTS}?page=1&per_page=100>; rel="first"`,
      "x-total-count": "1",
      etag: '"abc"',
      "cache-control": "private, no-cache",
      vary: "Authorization",
    },
    body: Buffer.from(JSON.stringify(json ?? page([event]))),
    ...rest,
  };
}

function problem(status: number, type: string, headers: Record<string, string> = {}, url = EVENTS, method = "GET") {
  const body = { type: `https://example.test/problems/${type}`, title: "t", status, detail: "d", instance: url };
  return {
    method,
    url,
    status,
    headers: { "content-type": "application/problem+json; charset=utf-8", ...headers },
    body: Buffer.from(JSON.stringify(body)),
  };
}

const violations = (response: ObservedResponse) => {
  const verdict = contract.check(response);
  if (verdict.kind !== "checked") throw new Error(`not checked: ${verdict.reason}`);
  return verdict.violations;
};

describe(OpenApiContract.name, () => {
  it("accepts a 200 that matches the document", () => {
    expect(violations(ok())).toEqual([]);
  });

  it.each([
    ["a missing field", page([{ ...event, live_at: undefined }]), /live_at/],
    ["an extra field", page([{ ...event, extra: 1 }]), /additional properties/],
    ["a null where the field is not nullable", page([{ ...event, name: null }]), /name/],
    ["a timestamp with milliseconds", page([{ ...event, scheduled_at: "2026-03-01T18:30:00.000Z" }]), /scheduled_at/],
    [
      "a per_page above the bound",
      { ...page([]), meta: { pagination: { current_page: 1, per_page: 101, total_pages: 0 } } },
      /per_page/,
    ],
  ])("rejects a 200 body with %s", (_name, json, message) => {
    const found = violations(ok({ json }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
  });

  it("rejects a 200 without a required header, and a header value outside its schema", () => {
    // ETag is optional since cursor mode answers without one; Cache-Control is required in both modes.
    const { "cache-control": _cacheControl, ...headers } = ok().headers;
    expect(violations(ok({ headers }))).toEqual([expect.stringMatching(/missing required header Cache-Control/)]);
    expect(violations(ok({ headers: { ...ok().headers, "x-total-count": "many" } }))).toEqual([
      expect.stringMatching(/header X-Total-Count/),
    ]);
  });

  it("rejects a status the operation does not document and a content type it does not list", () => {
    expect(violations(ok({ status: 418 }))).toEqual([expect.stringMatching(/status 418 is not documented/)]);
    expect(violations(ok({ headers: { ...ok().headers, "content-type": "text/html" } }))).toEqual([
      expect.stringMatching(/content type text\/html/),
    ]);
  });

  it("holds problems to their status, type and headers", () => {
    expect(violations(problem(401, "unauthorized", { "www-authenticate": 'Bearer realm="api"' }))).toEqual([]);
    expect(violations(problem(401, "unauthorized"))).toEqual([expect.stringMatching(/WWW-Authenticate/)]);
    expect(violations(problem(400, "invalid-query"))).toEqual([expect.stringMatching(/errors/)]);
    expect(violations(problem(404, "not-allowed-here"))).toEqual([expect.stringMatching(/type/)]);
    expect(violations(problem(503, "unavailable", { "retry-after": "5" }))).toEqual([]);
    expect(violations(problem(429, "rate-limited"))).toEqual([expect.stringMatching(/Retry-After/)]);
  });

  it("wants a 304 and a HEAD without a body", () => {
    const notModified = { ...ok(), status: 304, body: Buffer.alloc(0) };
    expect(violations(notModified)).toEqual([]);
    expect(violations({ ...notModified, body: Buffer.from("{}") })).toEqual([expect.stringMatching(/a body/)]);
    expect(violations(ok({ method: "HEAD" }))).toEqual([expect.stringMatching(/HEAD/)]);
    expect(violations(ok({ method: "HEAD", body: Buffer.alloc(0) }))).toEqual([]);
  });

  it("holds other methods on a documented path to the MethodNotAllowed response", () => {
    expect(violations(problem(405, "method-not-allowed", { allow: "GET, HEAD" }, EVENTS, "POST"))).toEqual([]);
    expect(violations(problem(405, "method-not-allowed", {}, EVENTS, "DELETE"))).toEqual([
      expect.stringMatching(/Allow/),
    ]);
    expect(violations({ ...ok(), method: "POST" })).toContainEqual(expect.stringMatching(/expected status 405/));
  });

  it("lets an oversized body meet the 413 problem and a CORS preflight its 204, and nothing else", () => {
    expect(violations(problem(413, "payload-too-large", {}, EVENTS, "POST"))).toEqual([]);
    expect(violations(problem(413, "method-not-allowed", {}, EVENTS, "POST"))).toContainEqual(
      expect.stringMatching(/payload-too-large/),
    );
    const preflight = { method: "OPTIONS", url: EVENTS, status: 204, body: Buffer.alloc(0) };
    expect(violations({ ...preflight, headers: { "access-control-allow-methods": "GET,HEAD" } })).toEqual([]);
    expect(violations({ ...preflight, headers: {} })).toEqual([
      expect.stringMatching(/missing required header Access-Control-Allow-Methods/),
    ]);
    expect(
      violations({ ...preflight, headers: { "access-control-allow-methods": "GET" }, body: Buffer.from("x") }),
    ).toEqual([expect.stringMatching(/a body where the document has none/)]);
  });

  it("checks the operations endpoints: health results and the not-ready problem; leaves /metrics out", () => {
    const json = (url: string, status: number, body: unknown, headers: Record<string, string> = {}) => ({
      method: "GET",
      url,
      status,
      headers: { "content-type": "application/json; charset=utf-8", ...headers },
      body: Buffer.from(JSON.stringify(body)),
    });
    const up = {
      status: "ok",
      info: { database: { status: "up" } },
      error: {},
      details: { database: { status: "up" } },
    };
    expect(violations(json("/health/ready", 200, up))).toEqual([]);
    expect(violations(json("/health/live", 200, { status: "ok" }))).toContainEqual(expect.stringMatching(/info/));
    const notReady = {
      ...JSON.parse(problem(503, "unavailable").body.toString()),
      checks: { database: { status: "down", message: "the database is unreachable" } },
    };
    expect(
      violations({
        ...json("/health/ready", 503, notReady, { "retry-after": "5" }),
        headers: { "content-type": "application/problem+json", "retry-after": "5" },
      }),
    ).toEqual([]);
    // /metrics is for the operators' scraper and left out of the consumers' document.
    const metrics = {
      method: "GET",
      url: "/metrics",
      status: 200,
      headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
      body: Buffer.from("# HELP up 1\n"),
    };
    expect(contract.check(metrics)).toEqual({ kind: "undocumented-path", reason: expect.any(String) });
  });

  it("holds unknown paths to the NotFound problem and names the paths it leaves to other contracts", () => {
    expect(violations(problem(404, "not-found", {}, "/v1/nothing"))).toEqual([]);
    expect(violations(ok({ url: "/v1/nothing" }))).toContainEqual(expect.stringMatching(/expected status 404/));
    expect(contract.check(ok({ url: "/oauth/token" }))).toEqual({
      kind: "undocumented-path",
      reason: expect.any(String),
    });
  });
});

describe(watchContract.name, () => {
  let server: Server;
  afterEach(() => new Promise((resolve) => server.close(resolve)));

  it("records a response that contradicts the document, and leaves the response itself alone", async () => {
    server = createServer((_request, response) => {
      // as Express does: setHeader, then write and end
      response.setHeader("content-type", "application/json");
      response.write('{"guides":');
      response.end("[]}");
    });
    watchContract(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}${EVENTS}`);
    expect(await response.text()).toBe('{"guides":[]}');
    const recorded = takeContractViolations();
    expect(recorded).toEqual(expect.arrayContaining([expect.stringMatching(/missing required header Cache-Control/)]));
    expect(recorded).toEqual(expect.arrayContaining([expect.stringMatching(/must have required property 'meta'/)]));
  });
});
