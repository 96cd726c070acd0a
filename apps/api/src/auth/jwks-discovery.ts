/**
 * Finds an issuer's `jwks_uri` from its metadata: OpenID Connect discovery first
 * (`<issuer>/.well-known/openid-configuration`), then RFC 8414
 * (`/.well-known/oauth-authorization-server<issuer path>`). The metadata must name the same issuer.
 */
export async function discoverJwksUri(issuer: string, fetchFn: typeof fetch = fetch): Promise<string> {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  const candidates = [
    new URL(`${path}/.well-known/openid-configuration`, url.origin),
    new URL(`/.well-known/oauth-authorization-server${path}`, url.origin),
  ];
  const failures: string[] = [];
  for (const candidate of candidates) {
    try {
      const response = await fetchFn(candidate, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(5_000),
      });
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
