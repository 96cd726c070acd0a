import { createHash, randomBytes } from "node:crypto";

/**
 * The built-in authorization server's authorization-code flow with PKCE, as a browser and a public
 * client run it, reduced to HTTP: follows the redirects within `origin`, keeps the cookies, posts
 * the login and consent forms, then exchanges the code. Every request may reach another replica.
 */
export async function signIn(
  origin: string,
  client: { clientId: string; redirectUri: string },
  credentials: { username: string; password: string },
): Promise<{ accessToken: string; refreshToken: string }> {
  const verifier = randomBytes(32).toString("base64url");
  const authorize = new URL("/oauth/auth", origin);
  authorize.search = new URLSearchParams({
    client_id: client.clientId,
    response_type: "code",
    redirect_uri: client.redirectUri,
    scope: "community:read",
    state: randomBytes(16).toString("base64url"),
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  }).toString();

  const cookies = new Map<string, string>();
  const send = async (url: URL, form?: Record<string, string>): Promise<Response> => {
    const headers: Record<string, string> = {};
    if (cookies.size > 0) headers.cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    if (form !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
    const response = await fetch(url, {
      method: form === undefined ? "GET" : "POST",
      headers,
      body: form === undefined ? undefined : new URLSearchParams(form).toString(),
      redirect: "manual",
    }).catch((error: Error) => {
      throw new Error(
        `sign-in: ${url.origin}${url.pathname}: ${(error.cause as Error | undefined)?.message ?? error.message}`,
      );
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";");
      const index = pair.indexOf("=");
      const value = pair.slice(index + 1).trim();
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(cookie)) cookies.delete(pair.slice(0, index).trim());
      else cookies.set(pair.slice(0, index).trim(), value);
    }
    return response;
  };

  let url = authorize;
  let response = await send(url);
  for (let step = 0; step < 20; step++) {
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location !== null) {
      url = new URL(location, url);
      if (url.href.startsWith(client.redirectUri)) return exchange(origin, client, url, verifier);
      response = await send(url);
      continue;
    }
    const html = await response.text();
    const actions = [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((match) => match[1] ?? "");
    const login = actions.find((action) => action.endsWith("/login"));
    const confirm = actions.find((action) => action.endsWith("/confirm"));
    const action = login ?? confirm;
    if (action === undefined) throw new Error(`sign-in: unexpected answer ${response.status} at ${url.pathname}`);
    url = new URL(action, origin);
    response = await send(url, login !== undefined ? credentials : {});
  }
  throw new Error("sign-in: the flow did not come back to the client");
}

async function exchange(
  origin: string,
  client: { clientId: string; redirectUri: string },
  callback: URL,
  verifier: string,
): Promise<{ accessToken: string; refreshToken: string }> {
  const response = await fetch(new URL("/oauth/token", origin), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: client.clientId,
      code: callback.searchParams.get("code") ?? "",
      code_verifier: verifier,
      redirect_uri: client.redirectUri,
    }),
  });
  const body = (await response.json()) as { access_token?: string; refresh_token?: string; error?: string };
  if (response.status !== 200 || body.access_token === undefined || body.refresh_token === undefined) {
    throw new Error(`sign-in: the code exchange answered ${response.status} ${body.error ?? ""}`);
  }
  return { accessToken: body.access_token, refreshToken: body.refresh_token };
}

/** RFC 7009 revocation of a refresh token at the replica listening at `origin`; its HTTP status. */
export async function revokeRefreshToken(origin: string, clientId: string, refreshToken: string): Promise<number> {
  const response = await fetch(new URL("/oauth/token/revocation", origin), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: clientId, token: refreshToken, token_type_hint: "refresh_token" }),
  });
  return response.status;
}
