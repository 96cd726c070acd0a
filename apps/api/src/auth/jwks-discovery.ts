import type { JWK, JWTVerifyGetKey } from "./jose";
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
  /** The longest a fetch (discovery and JWKS together) may take. */
  timeoutMs: number;
  /** Told once per failed fetch (not per request that meets the remembered failure). */
  onFailure: (error: Error) => void;
  fetchFn?: typeof fetch;
}

/**
 * An external issuer's signing keys: discovered and fetched on first use (so the api starts while
 * the provider is down), refetched for an unknown `kid`. Requests never multiply fetches: one fetch
 * in flight is shared by every request waiting for it, a failure is remembered for the cooldown
 * (requests meanwhile fail at once), and a fetch that hangs is abandoned after `timeoutMs`.
 */
export class RemoteIssuerKeys {
  private keys: { getKey: JWTVerifyGetKey; fetchedAt: number } | undefined;
  private failure: { error: IssuerKeysUnavailableError; at: number } | undefined;
  private inFlight: Promise<JWTVerifyGetKey> | undefined;
  private jwksUri: string | undefined;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly options: RemoteIssuerKeysOptions) {
    this.jwksUri = options.jwksUri;
    this.fetchFn = options.fetchFn ?? fetch;
  }

  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const jose = await loadJose();
    const current = this.keys;
    if (current === undefined) return (await this.refresh())(header, token);
    try {
      return await current.getKey(header, token);
    } catch (error) {
      const stale = Date.now() - current.fetchedAt >= this.options.cooldownMs;
      if (error instanceof jose.errors.JWKSNoMatchingKey && stale) return (await this.refresh())(header, token);
      throw error;
    }
  };

  private refresh(): Promise<JWTVerifyGetKey> {
    if (this.inFlight !== undefined) return this.inFlight;
    const failure = this.failure;
    if (failure !== undefined && Date.now() - failure.at < Math.max(this.options.cooldownMs, FAILURE_MEMORY_FLOOR_MS)) {
      return Promise.reject(failure.error);
    }
    this.inFlight = this.fetchKeys()
      .then((getKey) => {
        this.keys = { getKey, fetchedAt: Date.now() };
        this.failure = undefined;
        return getKey;
      })
      .catch((error: unknown) => {
        const unavailable = new IssuerKeysUnavailableError(
          `the keys of ${this.options.issuer} cannot be fetched: ${error instanceof Error ? error.message : String(error)}`,
        );
        this.failure = { error: unavailable, at: Date.now() };
        this.options.onFailure(unavailable);
        throw unavailable;
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  private fetchKeys(): Promise<JWTVerifyGetKey> {
    const { timeoutMs } = this.options;
    const signal = AbortSignal.timeout(timeoutMs);
    // The signal also cancels the requests; the race bounds the wait whatever the fetch does.
    const deadline = new Promise<never>((_resolve, reject) => {
      signal.addEventListener("abort", () => reject(new Error(`no answer within ${timeoutMs} ms`)), { once: true });
    });
    return Promise.race([this.fetchKeysUntil(signal), deadline]);
  }

  private async fetchKeysUntil(signal: AbortSignal): Promise<JWTVerifyGetKey> {
    const jose = await loadJose();
    this.jwksUri ??= await discoverJwksUri(this.options.issuer, this.fetchFn, signal);
    const response = await this.fetchFn(this.jwksUri, { headers: { accept: "application/json" }, signal });
    if (!response.ok) throw new Error(`${this.jwksUri}: HTTP ${response.status}`);
    const jwks = (await response.json()) as { keys?: unknown };
    if (!Array.isArray(jwks.keys)) throw new Error(`${this.jwksUri}: no "keys" array`);
    return jose.createLocalJWKSet({ keys: jwks.keys as JWK[] });
  }
}
