import { loadJose } from "./jose";
import { discoverJwksUri, IssuerKeysUnavailableError, RemoteIssuerKeys } from "./jwks-discovery";

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

describe(RemoteIssuerKeys.name, () => {
  const issuer = "https://idp.example.com";
  const header = { alg: "ES256", kid: "k" };
  const token = { payload: "", signature: "" } as never;

  function keysOver(respond: () => Promise<Response>, cooldownMs = 30_000) {
    let fetches = 0;
    const failures: string[] = [];
    const keys = new RemoteIssuerKeys({
      issuer,
      jwksUri: `${issuer}/jwks`,
      cooldownMs,
      timeoutMs: 1_000,
      onFailure: (error) => failures.push(error.message),
      fetchFn: (async () => {
        fetches++;
        return respond();
      }) as unknown as typeof fetch,
    });
    return { keys, fetches: () => fetches, failures };
  }

  afterEach(() => jest.useRealTimers());

  it("shares one fetch among concurrent requests and remembers its failure for the cooldown", async () => {
    jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask", "setTimeout", "clearTimeout"] });
    const { keys, fetches, failures } = keysOver(async () => new Response("down", { status: 500 }));
    const attempts = await Promise.allSettled(Array.from({ length: 20 }, () => keys.getKey(header, token)));
    expect(attempts.every((attempt) => attempt.status === "rejected")).toBe(true);
    await expect(keys.getKey(header, token)).rejects.toThrow(IssuerKeysUnavailableError);
    expect(fetches()).toBe(1);
    expect(failures).toEqual([`the keys of ${issuer} cannot be fetched: ${issuer}/jwks: HTTP 500`]);

    jest.setSystemTime(Date.now() + 30_000);
    await expect(keys.getKey(header, token)).rejects.toThrow(IssuerKeysUnavailableError);
    expect(fetches()).toBe(2);
  });

  it("gives up a fetch that hangs after the timeout", async () => {
    const { keys, failures } = keysOver(() => new Promise<Response>(() => undefined), 0);
    await expect(keys.getKey(header, token)).rejects.toThrow(/cannot be fetched/);
    expect(failures).toHaveLength(1);
  });

  it("keeps verifying with the keys it has while the issuer is down, and refetches an unknown kid once per cooldown", async () => {
    jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask", "setTimeout", "clearTimeout"] });
    const jose = await loadJose();
    const { publicKey } = await jose.generateKeyPair("ES256", { extractable: true });
    const jwk = { ...(await jose.exportJWK(publicKey)), kid: "k", alg: "ES256" };
    let up = true;
    const { keys, fetches, failures } = keysOver(async () =>
      up ? Response.json({ keys: [jwk] }) : new Response("down", { status: 503 }),
    );
    await expect(keys.getKey(header, token)).resolves.toBeDefined();
    expect(fetches()).toBe(1);

    up = false;
    // Long after jose's default cache age (10 minutes): the known key still verifies, with no fetch.
    jest.setSystemTime(Date.now() + 3_600_000);
    await expect(keys.getKey(header, token)).resolves.toBeDefined();
    expect(fetches()).toBe(1);
    // An unknown kid: one fetch, which fails and is remembered; the known key still verifies.
    const unknown = { alg: "ES256", kid: "other" };
    await expect(keys.getKey(unknown, token)).rejects.toThrow(IssuerKeysUnavailableError);
    await expect(keys.getKey(unknown, token)).rejects.toThrow(IssuerKeysUnavailableError);
    expect(fetches()).toBe(2);
    expect(failures).toHaveLength(1);
    await expect(keys.getKey(header, token)).resolves.toBeDefined();
  });
});
