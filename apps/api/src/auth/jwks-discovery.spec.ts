import { discoverJwksUri } from "./jwks-discovery";

/** A fetch that answers from a table of URL -> JSON body (anything else: 404). */
function fakeFetch(routes: Record<string, unknown>): { fetch: typeof fetch; asked: string[] } {
  const asked: string[] = [];
  const fn = async (input: string | URL | Request) => {
    const url = String(input);
    asked.push(url);
    return url in routes ? Response.json(routes[url]) : new Response("not found", { status: 404 });
  };
  return { fetch: fn as typeof fetch, asked };
}

describe(discoverJwksUri.name, () => {
  it("reads jwks_uri from the OpenID discovery document under the issuer's path", async () => {
    const issuer = "https://kc.example.com/realms/main";
    const { fetch, asked } = fakeFetch({
      [`${issuer}/.well-known/openid-configuration`]: { issuer, jwks_uri: `${issuer}/certs` },
    });
    await expect(discoverJwksUri(issuer, fetch)).resolves.toBe(`${issuer}/certs`);
    expect(asked).toEqual([`${issuer}/.well-known/openid-configuration`]);
  });

  it("falls back to RFC 8414 metadata, with the well-known segment before the issuer's path", async () => {
    const issuer = "https://as.example.com/tenant-1";
    const { fetch } = fakeFetch({
      "https://as.example.com/.well-known/oauth-authorization-server/tenant-1": {
        issuer,
        jwks_uri: "https://as.example.com/jwks",
      },
    });
    await expect(discoverJwksUri(issuer, fetch)).resolves.toBe("https://as.example.com/jwks");
  });

  it("refuses metadata that names another issuer, saying where it looked", async () => {
    const issuer = "https://idp.example.com";
    const { fetch } = fakeFetch({
      "https://idp.example.com/.well-known/openid-configuration": {
        issuer: "https://evil.example.com",
        jwks_uri: "https://evil.example.com/jwks",
      },
    });
    await expect(discoverJwksUri(issuer, fetch)).rejects.toThrow(
      /cannot discover the JWKS of https:\/\/idp\.example\.com \(set OAUTH_JWKS_URI\).*names issuer "https:\/\/evil\.example\.com".*HTTP 404/,
    );
  });
});
