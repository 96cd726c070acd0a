import type { JWTVerifyGetKey } from "./jose";
import { loadJose } from "./jose";

/**
 * Finds an issuer's `jwks_uri` from its metadata: OpenID Connect discovery first
 * (`<issuer>/.well-known/openid-configuration`), then RFC 8414
 * (`/.well-known/oauth-authorization-server<issuer path>`). The metadata must name the same issuer.
 */
export async function discoverJwksUri(
  issuer: string,
  fetchFn: typeof fetch = fetch,
  signal: AbortSignal = AbortSignal.timeout(5_000),
): Promise<string> {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  const candidates = [
    new URL(`${path}/.well-known/openid-configuration`, url.origin),
    new URL(`/.well-known/oauth-authorization-server${path}`, url.origin),
  ];
  const failures: string[] = [];
  for (const candidate of candidates) {
    // Past the deadline the next candidate would only fail the same way.
    if (signal.aborted) break;
    try {
      const response = await fetchFn(candidate, { headers: { accept: "application/json" }, signal });
      if (!response.ok) {
        failures.push(`${candidate}: HTTP ${response.status}`);
        continue;
      }
      const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (metadata.issuer !== issuer) {
        failures.push(`${candidate}: names issuer ${JSON.stringify(metadata.issuer)}`);
        continue;
      }
      if (typeof metadata.jwks_uri !== "string") {
        failures.push(`${candidate}: has no jwks_uri`);
        continue;
      }
      return metadata.jwks_uri;
    } catch (error) {
      failures.push(`${candidate}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`cannot discover the JWKS of ${issuer} (set OAUTH_JWKS_URI): ${failures.join("; ")}`);
}

/** A failure is remembered at least this long, even with no cooldown between successful fetches. */
const FAILURE_MEMORY_FLOOR_MS = 1_000;

/** The issuer's keys could not be fetched (now, or within the cooldown): no token of it verifies. */
export class IssuerKeysUnavailableError extends Error {
  override name = "IssuerKeysUnavailableError";
}

export interface RemoteIssuerKeysOptions {
  issuer: string;
  /** Unset: found through discovery. */
  jwksUri: string | undefined;
  /** Least time between two fetches, successful or failed. */
  cooldownMs: number;
  /** The longest one fetch (the discovery, or the JWKS) may take. */
  timeoutMs: number;
  /** Told once per failed fetch (not per request that meets the remembered failure). */
  onFailure: (error: Error) => void;
  fetchFn?: typeof fetch;
}

/**
 * An external issuer's signing keys: discovered and fetched on first use (so the api starts while
 * the provider is down), refetched for an unknown `kid`. The key set is jose's
 * `createRemoteJWKSet`: it keeps the keys (for good: `cacheMaxAge` Infinity, so a provider that is
 * down does not fail tokens of known keys), shares one fetch in flight among the requests waiting
 * for it, refetches for an unknown `kid` at most once per `cooldownDuration`, and gives each fetch
 * `timeoutDuration`. What jose does not do is kept here, around the fetches it makes: the
 * discovery of the JWKS URI, and the memory of a failure: jose fetches again on the next request
 * after a failed fetch, so here a failed fetch (discovery or JWKS) is remembered for the cooldown
 * and requests meanwhile fail at once, without a fetch; a fetch that ignores its signal is
 * abandoned after `timeoutMs` all the same.
 */
export class RemoteIssuerKeys {
  private keySet: Promise<JWTVerifyGetKey> | undefined;
  private failure: { error: IssuerKeysUnavailableError; at: number } | undefined;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly options: RemoteIssuerKeysOptions) {
    this.fetchFn = options.fetchFn ?? fetch;
  }

  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    this.keySet ??= this.createKeySet().catch((error: unknown) => {
      this.keySet = undefined;
      throw error;
    });
    return (await this.keySet)(header, token);
  };

  private async createKeySet(): Promise<JWTVerifyGetKey> {
    const jose = await loadJose();
    const { issuer, cooldownMs, timeoutMs } = this.options;
    const jwksUri =
      this.options.jwksUri ?? (await this.fetching((signal) => discoverJwksUri(issuer, this.fetchFn, signal)));
    return jose.createRemoteJWKSet(new URL(jwksUri), {
      cooldownDuration: cooldownMs,
      cacheMaxAge: Number.POSITIVE_INFINITY,
      timeoutDuration: timeoutMs,
      [jose.customFetch]: (url, init) => this.fetching((signal) => this.fetchJwks(url, init, signal)),
    });
  }

  /** The JWKS, checked as jose will check it, so that a malformed one is a remembered failure too. */
  private async fetchJwks(url: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
    const response = await this.fetchFn(url, {
      ...init,
      signal: AbortSignal.any([signal, init.signal as AbortSignal]),
    });
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    const jwks = (await response.json()) as { keys?: unknown };
    const keys = jwks.keys;
    if (!Array.isArray(keys) || !keys.every((key) => typeof key === "object" && key !== null && !Array.isArray(key))) {
      throw new Error(`${url}: no "keys" array of objects`);
    }
    return Response.json({ keys });
  }

  /** Runs a fetch unless one failed within the cooldown; bounds its wait; remembers its failure. */
  private async fetching<T>(fetchOnce: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const { cooldownMs, timeoutMs, issuer } = this.options;
    const failure = this.failure;
    if (failure !== undefined && Date.now() - failure.at < Math.max(cooldownMs, FAILURE_MEMORY_FLOOR_MS)) {
      throw failure.error;
    }
    const signal = AbortSignal.timeout(timeoutMs);
    // The signal also cancels the requests; the race bounds the wait whatever the fetch does.
    const deadline = new Promise<never>((_resolve, reject) => {
      signal.addEventListener("abort", () => reject(new Error(`no answer within ${timeoutMs} ms`)), { once: true });
    });
    try {
      const result = await Promise.race([fetchOnce(signal), deadline]);
      this.failure = undefined;
      return result;
    } catch (error) {
      const unavailable = new IssuerKeysUnavailableError(
        `the keys of ${issuer} cannot be fetched: ${error instanceof Error ? error.message : String(error)}`,
      );
      this.failure = { error: unavailable, at: Date.now() };
      this.options.onFailure(unavailable);
      throw unavailable;
    }
  }
}
