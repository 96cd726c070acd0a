import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import request from "supertest";
import { startE2eApp } from "../testing/e2e-app";
import { reportFault, timed } from "../testing/fault-report";
import { oauthFixture } from "../testing/oauth-fixture";
import { appForSuite } from "../testing/suite-app";
import { TestIssuer } from "./testing/test-issuer";

const EVENTS = "/v1/me/community/team/events";
const INBOUND = 200;
const CONCURRENCY = 50;

/** A loopback identity provider that answers every request 500, or never answers at all. */
async function brokenProvider(mode: "500" | "hang") {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    requests++;
    if (mode === "500") res.writeHead(500).end("down");
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    issuer: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * An identity provider that fails (500) or hangs must not turn inbound requests into outbound
 * ones: a failed discovery is remembered for the cooldown and one fetch in flight is shared.
 */
describe.each(["500", "hang"] as const)("an external issuer that answers %s", (mode) => {
  const provider = appForSuite(() => brokenProvider(mode));
  const e2e = appForSuite(
    () =>
      startE2eApp("postgres", oauthFixture(), {
        env: {
          AUTH_SERVER: "false",
          OAUTH_ISSUER: provider.issuer,
          OAUTH_AUDIENCE: "api",
          OAUTH_ISSUER_TIMEOUT_MS: "1000",
        },
      }),
    120_000,
  );
  const signer = TestIssuer.start();

  afterAll(async () => {
    await (await signer).close();
  });

  it(`makes at most one discovery for ${INBOUND} inbound requests, each answered 401`, async () => {
    const idp = await signer;
    await idp.addKey("k");
    const now = Math.floor(Date.now() / 1000);
    const token = await idp.sign("k", {
      iss: provider.issuer,
      aud: "api",
      sub: "user_runner",
      client_id: "c",
      scope: "community:read",
      iat: now,
      exp: now + 300,
    });
    const answers: { ms: number; value: request.Response }[] = [];
    for (let sent = 0; sent < INBOUND; sent += CONCURRENCY) {
      const batch = Array.from({ length: CONCURRENCY }, () =>
        timed(async () => request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${token}`)),
      );
      answers.push(...(await Promise.all(batch)));
    }
    const statuses = answers.map((answer) => answer.value.status);
    const slowest = Math.max(...answers.map((answer) => answer.ms));
    reportFault(
      `discovery flood (provider ${mode === "500" ? "answers 500" : "hangs"})`,
      `${INBOUND} inbound requests -> ${provider.requests()} outbound; slowest answer ${Math.round(slowest)} ms (OAUTH_ISSUER_TIMEOUT_MS=1000)`,
    );
    expect(statuses.filter((status) => status !== 401)).toEqual([]);
    // One discovery: the OpenID document, then the RFC 8414 one (a hung first one uses up the wait).
    expect(provider.requests()).toBeLessThanOrEqual(2);
    expect(provider.requests()).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
