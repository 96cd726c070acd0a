import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from "node:http";
import { type AddressInfo, isIP, type LookupFunction } from "node:net";
import { text } from "node:stream/consumers";
import { parseAllowedHosts } from "../../config/webhook-settings";
import { freePort } from "../../testing/free-port";
import { GuardedHttpAgent, RefusedAddressError } from "./guarded-agents";
import { ANSWER_READ_BYTES, postNotice, WEBHOOK_USER_AGENT } from "./post-notice";
import { resolveAndCheck } from "./webhook-url";

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  port: number;
  /** http://127.0.0.1:<port> */
  origin: string;
  received: Received[];
  /** TCP connections accepted, whether or not a request followed. */
  connections: () => number;
  close(): Promise<void>;
}

/** A loopback HTTP receiver that records every connection and request (with its body). */
async function startReceiver(answer: (response: ServerResponse, request: IncomingMessage) => void): Promise<Receiver> {
  const received: Received[] = [];
  let connections = 0;
  const server = createServer(async (request, response) => {
    const body = await text(request);
    received.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
    answer(response, request);
  });
  server.on("connection", () => {
    connections += 1;
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    received,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** A lookup that gives the next answer of `answers` on each call (the last one once they run out). */
function rebinding(...answers: string[][]): LookupFunction {
  let call = 0;
  return (_hostname, options, callback) => {
    const addresses = (answers[Math.min(call++, answers.length - 1)] ?? []).map((address) => ({
      address,
      family: isIP(address),
    }));
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]?.address ?? "", addresses[0]?.family);
  };
}

const NOTICE = { headers: { "webhook-id": "msg_1" }, body: '{"type":"webhook.ping"}' };
const LOOPBACK = parseAllowedHosts("127.0.0.1");
const NONE = parseAllowedHosts(undefined);

describe(postNotice.name, () => {
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it("POSTs the notice to an allowed loopback host and reports the status", async () => {
    receiver = await startReceiver((response) => response.writeHead(204).end());
    const outcome = await postNotice(new URL(`${receiver.origin}/hooks?list=events`), NOTICE, {
      allowedHosts: LOOPBACK,
    });

    expect(outcome).toEqual({ kind: "answered", status: 204, retryAfterSeconds: null });
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(got).toMatchObject({ method: "POST", url: "/hooks?list=events", body: NOTICE.body });
    expect(got?.headers).toMatchObject({
      "webhook-id": "msg_1",
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(NOTICE.body)),
      "user-agent": WEBHOOK_USER_AGENT,
      host: `127.0.0.1:${receiver.port}`,
    });
  });

  it("reaches an allowed host name through the lookup it is given, at whatever address", async () => {
    receiver = await startReceiver((response) => response.writeHead(200).end("ok"));
    const url = new URL(`http://receiver.test:${receiver.port}/hooks`);
    const outcome = await postNotice(url, NOTICE, {
      allowedHosts: parseAllowedHosts("receiver.test"),
      lookup: rebinding(["127.0.0.1"]),
    });
    expect(outcome).toMatchObject({ kind: "answered", status: 200 });
    expect(receiver.received).toHaveLength(1);
  });

  it("refuses, at connect time, a host name that resolved to a public address at creation and to loopback now", async () => {
    receiver = await startReceiver((response) => response.writeHead(200).end());
    const url = new URL(`https://receiver.test:${receiver.port}/hooks`);
    const lookup = rebinding(["93.184.216.34"], ["127.0.0.1"]);

    await expect(resolveAndCheck(url, NONE, lookup)).resolves.toBeNull();
    const outcome = await postNotice(url, NOTICE, { allowedHosts: NONE, lookup });

    expect(outcome).toEqual({ kind: "refused", reason: "receiver.test resolves to an address in the loopback range" });
    expect(receiver.connections()).toBe(0);
  });

  it("refuses localhost as the system resolver answers it", async () => {
    receiver = await startReceiver((response) => response.writeHead(200).end());
    const outcome = await postNotice(new URL(`https://localhost:${receiver.port}/`), NOTICE, { allowedHosts: NONE });
    expect(outcome).toMatchObject({
      kind: "refused",
      reason: expect.stringMatching(/^localhost resolves to an address in the loopback range/),
    });
    expect(receiver.connections()).toBe(0);
  });

  it("refuses a host name when any one of its addresses is refused", async () => {
    receiver = await startReceiver((response) => response.writeHead(200).end());
    const url = new URL(`https://receiver.test:${receiver.port}/hooks`);
    const outcome = await postNotice(url, NOTICE, {
      allowedHosts: NONE,
      lookup: rebinding(["::ffff:127.0.0.1", "127.0.0.1"]),
    });
    expect(outcome).toMatchObject({ kind: "refused", reason: expect.stringMatching(/IPv4-mapped loopback/) });
    expect(receiver.connections()).toBe(0);
  });

  it("refuses a URL the policy refuses now (its host no longer allowed) without connecting", async () => {
    receiver = await startReceiver((response) => response.writeHead(200).end());
    const outcome = await postNotice(new URL(`${receiver.origin}/hooks`), NOTICE, { allowedHosts: NONE });
    expect(outcome).toEqual({ kind: "refused", reason: "the URL must use https" });
    const literal = await postNotice(new URL(`https://127.0.0.1:${receiver.port}/`), NOTICE, { allowedHosts: NONE });
    expect(literal).toMatchObject({ kind: "refused", reason: expect.stringMatching(/loopback/) });
    expect(receiver.connections()).toBe(0);
  });

  it("answers a 302 with its status and does not request its Location", async () => {
    receiver = await startReceiver((response, request) => {
      if (request.url === "/hooks") response.writeHead(302, { location: "/elsewhere" }).end();
      else response.writeHead(200).end();
    });
    const outcome = await postNotice(new URL(`${receiver.origin}/hooks`), NOTICE, { allowedHosts: LOOPBACK });
    expect(outcome).toEqual({ kind: "answered", status: 302, retryAfterSeconds: null });
    expect(receiver.received.map((got) => got.url)).toEqual(["/hooks"]);
  });

  it("fails when the receiver does not answer before the deadline", async () => {
    receiver = await startReceiver(() => undefined);
    const outcome = await postNotice(new URL(`${receiver.origin}/hooks`), NOTICE, {
      allowedHosts: LOOPBACK,
      timeoutMs: 300,
    });
    expect(outcome).toEqual({ kind: "failed", reason: "no answer within 300 ms" });
    expect(receiver.received).toHaveLength(1);
  });

  it("fails when nothing listens, and when TLS cannot be spoken", async () => {
    const closed = await postNotice(new URL(`http://127.0.0.1:${await freePort()}/`), NOTICE, {
      allowedHosts: LOOPBACK,
    });
    expect(closed).toMatchObject({ kind: "failed", reason: expect.stringMatching(/ECONNREFUSED/) });

    receiver = await startReceiver((response) => response.writeHead(200).end());
    const tls = await postNotice(new URL(`https://127.0.0.1:${receiver.port}/`), NOTICE, { allowedHosts: LOOPBACK });
    expect(tls).toMatchObject({ kind: "failed" });
    expect(receiver.received).toHaveLength(0);
  });

  it.each([
    ["120", 503, 120],
    ["0", 429, 0],
    ["soon", 503, null],
    ["1.5", 429, null],
  ])("reads Retry-After %j on a %i", async (header, status, seconds) => {
    receiver = await startReceiver((response) => response.writeHead(status, { "retry-after": header }).end());
    const outcome = await postNotice(new URL(`${receiver.origin}/hooks`), NOTICE, { allowedHosts: LOOPBACK });
    expect(outcome).toEqual({ kind: "answered", status, retryAfterSeconds: seconds });
  });

  it("reads a Retry-After date as the seconds until it", async () => {
    receiver = await startReceiver((response) =>
      response.writeHead(429, { "retry-after": new Date(Date.now() + 90_000).toUTCString() }).end(),
    );
    const outcome = await postNotice(new URL(`${receiver.origin}/hooks`), NOTICE, { allowedHosts: LOOPBACK });
    expect(outcome).toMatchObject({ kind: "answered", status: 429 });
    const seconds = outcome.kind === "answered" ? outcome.retryAfterSeconds : null;
    expect(seconds).toBeGreaterThanOrEqual(85);
    expect(seconds).toBeLessThanOrEqual(90);
  });

  it("reads a bounded part of a huge answer and closes the connection", async () => {
    const total = 64 * 1024 * 1024;
    let written = 0;
    let closedEarly: Promise<boolean> = Promise.resolve(false);
    receiver = await startReceiver((response) => {
      response.writeHead(200, { "content-length": total });
      const chunk = Buffer.alloc(64 * 1024, "x");
      closedEarly = once(response, "close").then(() => written < total);
      const pump = () => {
        while (written < total && !response.destroyed) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once("drain", pump);
        }
        response.end();
      };
      pump();
    });
    const outcome = await postNotice(new URL(`${receiver.origin}/hooks`), NOTICE, { allowedHosts: LOOPBACK });
    expect(outcome).toEqual({ kind: "answered", status: 200, retryAfterSeconds: null });
    await expect(closedEarly).resolves.toBe(true);
    expect(written).toBeGreaterThanOrEqual(ANSWER_READ_BYTES);
  });

  it("ignores proxy settings in the environment", async () => {
    const proxy = await startReceiver((response) => response.writeHead(502).end());
    const saved = { ...process.env };
    Object.assign(process.env, {
      HTTP_PROXY: proxy.origin,
      http_proxy: proxy.origin,
      HTTPS_PROXY: proxy.origin,
      NODE_USE_ENV_PROXY: "1",
    });
    try {
      receiver = await startReceiver((response) => response.writeHead(204).end());
      const outcome = await postNotice(new URL(`${receiver.origin}/hooks`), NOTICE, { allowedHosts: LOOPBACK });
      expect(outcome).toMatchObject({ kind: "answered", status: 204 });
      expect(proxy.connections()).toBe(0);
    } finally {
      process.env = saved;
      await proxy.close();
    }
  });
});

describe(GuardedHttpAgent.name, () => {
  it("refuses an IP literal before connecting to it, whoever makes the request", async () => {
    const receiver = await startReceiver((response) => response.writeHead(200).end());
    try {
      const agent = new GuardedHttpAgent();
      const exchange = request({ agent, host: "127.0.0.1", port: receiver.port, path: "/" });
      const settled = new Promise<unknown>((resolve) => {
        exchange.once("error", resolve);
        exchange.once("response", (response: IncomingMessage) => resolve(response.statusCode));
      });
      exchange.end();
      const result = await settled;
      exchange.destroy();
      agent.destroy();
      expect(result).toBeInstanceOf(RefusedAddressError);
      expect(receiver.connections()).toBe(0);
    } finally {
      await receiver.close();
    }
  });
});
