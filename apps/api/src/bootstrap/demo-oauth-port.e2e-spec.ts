import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { READ_SCOPE } from "@community/domain";
import { DEMO_OAUTH_CLIENTS, DEMO_PASSWORDS } from "@community/fixtures";
import { ApiProcess } from "@community/fixtures/testing";
import { OAuthBrowser, signInAndConsent } from "../oauth/testing/oauth-browser";
import { freePort } from "../testing/free-port";

/**
 * `pnpm start` on a port other than 3000: the demo clients' redirect URIs follow PORT, on
 * localhost and 127.0.0.1, for the callback page and for Swagger UI.
 */
describe("the embedded demo's OAuth sign-in on another port", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "demo-port-"));
  let api: ApiProcess;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    api = new ApiProcess({ EMBEDDED_DATA_DIR: path.join(dir, "pglite"), PORT: String(port), LOG_LEVEL: "info" });
    await api.listening(120_000);
  }, 180_000);

  afterAll(async () => {
    api?.kill("SIGTERM");
    await api?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  const pkce = () => {
    const verifier = randomBytes(32).toString("base64url");
    return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
  };

  const authorizationUrl = (origin: string, redirectUri: string, challenge: string) => {
    const url = new URL("/oauth/auth", origin);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: DEMO_OAUTH_CLIENTS.public.clientId,
      redirect_uri: redirectUri,
      scope: READ_SCOPE,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s1",
    }).toString();
    return url;
  };

  it.each(["localhost", "127.0.0.1"])(
    "shows the sign-in page for the callback page's redirect URI on %s",
    async (host) => {
      const origin = `http://${host}:${port}`;
      const browser = new OAuthBrowser(origin);
      const url = authorizationUrl(origin, `${origin}/oauth/callback`, pkce().challenge);
      const step = await browser.follow(await browser.fetch(url), url.toString());
      expect(step.page?.status).toBe(200);
      expect(await step.page?.text()).toContain('/login"');
    },
  );

  it("moves Swagger UI opened on 127.0.0.1 to PUBLIC_URL's host, where the sign-in's cookies live", async () => {
    const moved = await fetch(`http://127.0.0.1:${port}/docs`, { redirect: "manual" });
    expect(moved.status).toBe(302);
    expect(moved.headers.get("location")).toBe(`http://localhost:${port}/docs`);
    expect((await fetch(`http://localhost:${port}/docs`, { redirect: "manual" })).status).toBe(200);
  });

  // The sign-in runs on the issuer (PUBLIC_URL, here http://localhost:PORT); the app that asked for
  // it may live on either name and gets the code back there.
  it.each(["localhost", "127.0.0.1"])(
    "signs in for an app on %s through Swagger UI's redirect page, with a code that lists events",
    async (host) => {
      const origin = `http://${host}:${port}`;
      const issuer = `http://localhost:${port}`;
      const redirectUri = `${origin}/docs/oauth2-redirect.html`;
      const { verifier, challenge } = pkce();
      const back = await signInAndConsent(
        new OAuthBrowser(issuer),
        authorizationUrl(issuer, redirectUri, challenge),
        { username: "user_sam", password: DEMO_PASSWORDS.user_sam },
        issuer,
      );
      expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
      const code = back.searchParams.get("code");
      expect(code).toEqual(expect.any(String));

      // Swagger UI's tokenUrl is relative: the exchange goes to the page's own origin.
      const token = await fetch(`${origin}/oauth/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "authorization_code",
          client_id: DEMO_OAUTH_CLIENTS.public.clientId,
          redirect_uri: redirectUri,
          code: code ?? "",
          code_verifier: verifier,
        }),
      });
      expect(token.status).toBe(200);
      const { access_token: accessToken } = (await token.json()) as { access_token: string };
      const events = await fetch(`${origin}/v1/me/community/team/events?per_page=1`, {
        headers: { Authorization: `Bearer ${accessToken}` },
      });
      expect(events.status).toBe(200);
    },
  );

  it("refuses a redirect URI of another port with a page styled like the sign-in page", async () => {
    const origin = `http://127.0.0.1:${port}`;
    const browser = new OAuthBrowser(origin);
    const url = authorizationUrl(origin, `${origin}/oauth/callback`, pkce().challenge);
    const signIn = await browser.follow(await browser.fetch(url), url.toString());
    expect(signIn.page?.status).toBe(200);
    const refused = await fetch(
      authorizationUrl(origin, `http://127.0.0.1:${port + 1}/oauth/callback`, "x".repeat(43)),
    );
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain("invalid_redirect_uri");
    const style = (text: string) => /<style>[\s\S]*<\/style>/.exec(text)?.[0];
    expect(style(html)).toBeDefined();
    expect(style(html)).toBe(style((await signIn.page?.text()) ?? ""));
    // The page's inline style is allowed by its own policy, as on the sign-in page.
    expect(refused.headers.get("content-security-policy")).toBe(signIn.page?.headers.get("content-security-policy"));
  });
});
