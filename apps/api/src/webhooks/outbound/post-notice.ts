import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { AllowedHosts } from "../../config/webhook-settings";
import { GuardedHttpAgent, GuardedHttpsAgent, RefusedAddressError } from "./guarded-agents";
import { parseRetryAfter } from "./retry-after";
import { connectHost, urlPolicyProblem } from "./webhook-url";

/**
 * What became of one POST: the receiver answered (any status, a 3xx included: redirects are not
 * followed), the address policy refused the connection, or the exchange failed (network, TLS,
 * deadline).
 */
export type PostOutcome =
  | { kind: "answered"; status: number; retryAfterSeconds: number | null }
  | { kind: "refused"; reason: string }
  | { kind: "failed"; reason: string };

export interface NoticeRequest {
  headers: Record<string, string>;
  /** JSON text. */
  body: string;
}

export interface PostNoticeOptions {
  allowedHosts: AllowedHosts;
  /** One deadline for the connection, the answer's headers and the part of its body that is read. */
  timeoutMs?: number;
  /** Resolves host names (dns.lookup by default); the answers are checked all the same. */
  lookup?: LookupFunction;
}

export const NOTICE_TIMEOUT_MS = 15_000;
/** How much of an answer's body is read (and discarded) before the connection is closed. */
export const ANSWER_READ_BYTES = 64 * 1024;
export const WEBHOOK_USER_AGENT = "community-team-webhooks/1";

/**
 * POSTs a notice to a webhook URL. Every connection is checked at connect time against the address
 * policy (unless the URL's host is allowed), so that what the host resolves to now is what counts.
 * No redirect is followed, no proxy from the environment is used, and one agent per call without
 * keep-alive leaves no socket behind. Never rejects for what the receiver or the network does.
 */
export function postNotice(url: URL, request: NoticeRequest, options: PostNoticeOptions): Promise<PostOutcome> {
  const timeoutMs = options.timeoutMs ?? NOTICE_TIMEOUT_MS;
  // The configuration may have changed since the URL was stored (an allowed host removed).
  const problem = urlPolicyProblem(url, options.allowedHosts);
  if (problem !== null) return Promise.resolve({ kind: "refused", reason: `the URL ${problem}` });

  return new Promise((resolve) => {
    const agent = agentFor(url, options.allowedHosts.has(url.hostname));
    let answered: PostOutcome | undefined;
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      exchange.destroy();
      agent.destroy();
      resolve(outcome);
    };
    const deadline = setTimeout(
      () => finish(answered ?? { kind: "failed", reason: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );

    const exchange = (url.protocol === "https:" ? https : http).request({
      agent,
      method: "POST",
      host: connectHost(url),
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      lookup: options.lookup,
      headers: {
        ...request.headers,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(request.body),
        "user-agent": WEBHOOK_USER_AGENT,
      },
    });
    exchange.on("error", (error) => finish(failure(error)));
    exchange.on("response", (response) => {
      const outcome: PostOutcome = {
        kind: "answered",
        status: response.statusCode ?? 0,
        retryAfterSeconds: parseRetryAfter(response.headers["retry-after"]),
      };
      answered = outcome;
      const done = () => finish(outcome);
      let read = 0;
      response.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read >= ANSWER_READ_BYTES) done();
      });
      response.on("end", done);
      response.on("close", done);
      // The status is known: a body cut short changes nothing.
      response.on("error", done);
    });
    exchange.end(request.body);
  });
}

function agentFor(url: URL, allowed: boolean): http.Agent {
  const options: http.AgentOptions = { keepAlive: false, maxSockets: 1 };
  if (url.protocol === "https:") return allowed ? new https.Agent(options) : new GuardedHttpsAgent(options);
  return allowed ? new http.Agent(options) : new GuardedHttpAgent(options);
}

function failure(error: Error): PostOutcome {
  return error instanceof RefusedAddressError
    ? { kind: "refused", reason: error.message }
    : { kind: "failed", reason: error.message };
}
