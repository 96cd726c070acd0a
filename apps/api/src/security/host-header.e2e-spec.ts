import { Writable } from "node:stream";
import { contractFixture, TOKENS } from "@community/fixtures/testing";
import { type E2eApp, listenOnLoopback, startE2eApp } from "../testing/e2e-app";
import { LogSpy } from "../testing/log-spy";
import { sendRaw } from "../testing/raw-http";
import { listeningContractAppForSuite } from "../testing/suite-app";

/** The request log's JSON lines. */
class LogLines extends Writable {
  readonly entries: Array<Record<string, unknown>> = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const line of chunk.toString().split("\n")) if (line !== "") this.entries.push(JSON.parse(line));
    done();
  }
}

const PATHS = [
  "/oauth/auth?client_id=x",
  "/oauth/.well-known/openid-configuration",
  "/oauth/interaction/some-uid",
  "/v1/me/community/team/events",
  "/health/live",
  "/nothing",
];

const MALFORMED_HOSTS = ["evil:99999", "[::1", "a b", "a/b", "user@evil", "[not-an-address]:80", "host:80:80"];

function head(path: string, hosts: string[]): string {
  return [
    `GET ${path} HTTP/1.1`,
    ...hosts.map((host) => `Host: ${host}`),
    `Authorization: Bearer ${TOKENS.runner}`,
    "Connection: close",
    "",
    "",
  ].join("\r\n");
}

describe("the Host header (RFC 9112 section 3.2)", () => {
  const logs = new LogLines();
  let e2e: E2eApp;
  let port: number;
  let spy: LogSpy;

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", contractFixture(), { env: { LOG_LEVEL: "info" }, logDestination: logs });
    ({ port } = await listenOnLoopback(e2e));
    spy = new LogSpy();
  });

  afterAll(async () => {
    spy?.restore();
    await e2e?.close();
  });

  it.each(MALFORMED_HOSTS)(
    "answers Host: %s with a 400 bad-request problem on every route, logged at warn",
    async (host) => {
      const logged = spy.mark();
      const from = logs.entries.length;
      for (const path of PATHS) {
        const response = await sendRaw(port, head(path, [host]));
        expect(`${path} ${response.status}`).toBe(`${path} 400`);
        expect(response.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
        const body = JSON.parse(response.body) as Record<string, unknown>;
        expect(body.type).toMatch(/\/problems\/bad-request$/);
        expect(body.detail).toBe("The Host header is not a valid host[:port] (RFC 9112 section 3.2)");
        expect(response.body).not.toContain(host);
      }
      expect(logged().filter((line) => line.level === "error")).toEqual([]);
      const lines = logs.entries.slice(from).filter((entry) => entry.msg === "request completed");
      expect(lines.map((entry) => entry.level)).toEqual(PATHS.map(() => 40));
    },
  );

  it("answers two Host headers with a 400 problem, even when they agree", async () => {
    for (const hosts of [
      ["localhost", "evil.example"],
      ["localhost", "localhost"],
    ]) {
      for (const path of PATHS) {
        const response = await sendRaw(port, head(path, hosts));
        expect(`${path} ${response.status}`).toBe(`${path} 400`);
        expect(JSON.parse(response.body).detail).toBe("A request carries one Host header (RFC 9112 section 3.2)");
      }
    }
  });

  it.each(["localhost", "localhost:3000", "127.0.0.1:65535", "[::1]:8080", "api.example.com", "xn--bcher-kva.example"])(
    "serves Host: %s",
    async (host) => {
      const response = await sendRaw(port, head("/v1/me/community/team/events", [host]));
      expect(response.status).toBe(200);
      expect((await sendRaw(port, head("/oauth/.well-known/openid-configuration", [host]))).status).toBe(200);
    },
  );
});

describe("a problem's instance", () => {
  const app = listeningContractAppForSuite();

  it.each([
    ["an absolute-form target", "http://evil.example/v1/nothing?page=1", "/v1/nothing?page=1"],
    [
      "an absolute-form list target",
      "http://evil.example/v1/me/community/team/events?per_page=500",
      "/v1/me/community/team/events?per_page=500",
    ],
    ["a network-path reference", "//evil.example/v1/nothing", "/evil.example/v1/nothing"],
  ])("is a path of this service for %s", async (_case, target, instance) => {
    const response = await sendRaw(app.port, head(target, ["localhost"]));
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(JSON.parse(response.body).instance).toBe(instance);
  });
});
