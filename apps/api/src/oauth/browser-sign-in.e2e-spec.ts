import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { READ_SCOPE } from "@community/domain";
import { DEMO_OAUTH_CLIENTS, DEMO_PASSWORDS } from "@community/fixtures";
import { ApiProcess } from "@community/fixtures/testing";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { freePort } from "../testing/free-port";

/**
 * What a person does in a browser, in a real headless Chromium (Debian's, never a downloaded one)
 * against the api as `pnpm start` runs it (the embedded database with the demo data): the README's
 * "In the browser" steps, Swagger UI's Authorize and "Try it out", sign-out, and a form posted to
 * the sign-in page from another site, which must still be refused. The api's pages leave nothing
 * in Chromium's console or issues (warnings, errors, DOM notes such as a missing autocomplete).
 */
describe("signing in with a real browser", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "browser-sign-in-"));
  const sam = { username: "user_sam", password: DEMO_PASSWORDS.user_sam };
  let api: ApiProcess;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    api = new ApiProcess({ EMBEDDED_DATA_DIR: path.join(dir, "pglite"), PORT: String(port), LOG_LEVEL: "info" });
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    await api.listening(180_000);
  }, 240_000);

  /**
   * What Chromium says about the pages of a test: console messages at warning or error, its DOM
   * notes (verbose "[DOM] Input elements should have autocomplete attributes"), uncaught errors,
   * and DevTools issues (Audits), each with the page it was on. The api's own pages leave none.
   */
  let problems: Array<{ url: string; text: string }>;
  /** The problems seen on the api's own pages (/oauth/...), not on Swagger UI's. */
  const onOwnPages = () =>
    problems.filter(({ url }) => url === "" || new URL(url, origin).pathname.startsWith("/oauth/")).map((p) => p.text);

  async function watch(page: Page): Promise<void> {
    page.on("console", (message) => {
      if (["warning", "error"].includes(message.type()) || message.text().startsWith("[DOM]")) {
        problems.push({
          url: message.location().url || page.url(),
          text: `console ${message.type()}: ${message.text()}`,
        });
      }
    });
    page.on("pageerror", (error) => problems.push({ url: page.url(), text: `uncaught: ${error.message}` }));
    const cdp = await page.context().newCDPSession(page);
    cdp.on("Audits.issueAdded", ({ issue }) =>
      problems.push({ url: page.url(), text: `issue ${issue.code}: ${JSON.stringify(issue.details)}` }),
    );
    await cdp.send("Audits.enable");
  }

  beforeEach(async () => {
    problems = [];
    context = await browser.newContext();
    // Every page of the context, popups included (Swagger UI's sign-in window).
    context.on("page", (page) => {
      watch(page).catch((error: Error) => problems.push({ url: "", text: `cannot watch a page: ${error.message}` }));
    });
  });

  afterEach(async () => {
    await context?.close();
  });

  afterAll(async () => {
    await browser?.close();
    api?.kill("SIGTERM");
    await api?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  const pkce = () => {
    const verifier = randomBytes(48).toString("base64url").slice(0, 64);
    return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
  };

  /** The URL the README's curl block prints, on this port. */
  const readmeAuthorizationUrl = (challenge: string) => {
    const url = new URL("/oauth/auth", origin);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: DEMO_OAUTH_CLIENTS.public.clientId,
      redirect_uri: `${origin}/oauth/callback`,
      scope: READ_SCOPE,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "xyz",
    }).toString();
    return url.toString();
  };

  /** Fills the sign-in page and presses its button, then the consent page's "Allow". */
  async function signInAndAllow(page: Page): Promise<void> {
    await page.getByLabel("User id").fill(sam.username);
    await page.getByLabel("Password").fill(sam.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Allow access?" }).waitFor();
    await page.getByRole("button", { name: "Allow" }).click();
  }

  /** The README's steps: open the URL, sign in, allow, read the code from the callback page. */
  async function codeFromCallbackPage(page: Page, challenge: string): Promise<string> {
    const shown = await page.goto(readmeAuthorizationUrl(challenge));
    expect(shown?.status()).toBe(200);
    await signInAndAllow(page);
    await page.getByRole("heading", { name: "Authorization response" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/oauth/callback");
    expect(await page.locator("dt:text-is('state') + dd").textContent()).toBe("xyz");
    return (await page.locator("dt:text-is('code') + dd").textContent()) ?? "";
  }

  async function exchange(code: string, verifier: string) {
    const response = await fetch(`${origin}/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "authorization_code",
        client_id: DEMO_OAUTH_CLIENTS.public.clientId,
        redirect_uri: `${origin}/oauth/callback`,
        code,
        code_verifier: verifier,
      }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  }

  const listEvents = (accessToken: string) =>
    fetch(`${origin}/v1/me/community/team/events?per_page=1`, { headers: { Authorization: `Bearer ${accessToken}` } });

  it("follows the README: sign in, allow, a code on the callback page, a token, a 200 list", async () => {
    const page = await context.newPage();
    const { verifier, challenge } = pkce();
    const code = await codeFromCallbackPage(page, challenge);
    expect(code).toMatch(/^[\w-]{20,}$/);
    const accessToken = await exchange(code, verifier);
    expect((await listEvents(accessToken)).status).toBe(200);
    expect(problems.map((p) => `${p.url}: ${p.text}`)).toEqual([]);
  }, 60_000);

  it("signs in through Swagger UI's Authorize and lists events with Try it out", async () => {
    const page = await context.newPage();
    await page.goto(`${origin}/docs`);
    await page.getByRole("button", { name: "Authorize" }).first().click();
    // Swagger UI names its buttons by aria-label: "Authorize" of the oauth2 scheme, then "Logout".
    expect(await page.locator("#client_id_authorizationCode").inputValue()).toBe(DEMO_OAUTH_CLIENTS.public.clientId);
    const [popup] = await Promise.all([
      page.waitForEvent("popup"),
      page.getByRole("button", { name: "Apply given OAuth2 credentials" }).click(),
    ]);
    // Swagger UI's redirect page hands the code to the opener and closes; the UI exchanges it.
    // Listened for first: the popup may close before "Allow"'s click returns.
    const closed = popup.waitForEvent("close", { timeout: 60_000 });
    await signInAndAllow(popup);
    await closed;
    await page.getByRole("button", { name: "Remove authorization" }).waitFor();
    await page.getByRole("button", { name: "Close" }).first().click();

    const operation = page.locator('.opblock-get:has(.opblock-summary-path[data-path="/v1/me/community/team/events"])');
    await operation.locator(".opblock-summary").click();
    await operation.getByRole("button", { name: "Try it out" }).click();
    await operation.getByRole("button", { name: "Execute" }).click();
    const status = operation.locator(".live-responses-table tr.response .response-col_status");
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe("200");
    // The sign-in and consent pages in Swagger UI's window; Swagger UI's own page is not ours to judge.
    expect(onOwnPages()).toEqual([]);
  }, 60_000);

  it("signs out at /oauth/session/end, which ends the grant and its tokens", async () => {
    const page = await context.newPage();
    const { verifier, challenge } = pkce();
    const accessToken = await exchange(await codeFromCallbackPage(page, challenge), verifier);
    expect((await listEvents(accessToken)).status).toBe(200);

    await page.goto(`${origin}/oauth/session/end`);
    await page.getByRole("heading", { name: "Sign out?" }).waitFor();
    await page.getByRole("button", { name: "Yes, sign me out" }).click();
    await page.getByRole("heading", { name: "Signed out" }).waitFor();
    expect((await listEvents(accessToken)).status).toBe(401);
    expect(problems.map((p) => `${p.url}: ${p.text}`)).toEqual([]);
  }, 60_000);

  describe("a form posted to the sign-in page from another site", () => {
    let attacker: Server;
    let attackerPage = "";

    beforeAll(() => {
      attacker = createServer((_request, response) => {
        response.setHeader("content-type", "text/html; charset=utf-8");
        response.end(attackerPage);
      });
    });

    afterAll(async () => {
      await new Promise((resolve) => attacker.close(resolve));
    });

    // 127.0.0.2 is another site than localhost (Sec-Fetch-Site: cross-site); another port of
    // localhost is the same site but another origin (same-site), whose posts carry Lax cookies.
    it.each([
      ["another loopback address (cross-site)", "127.0.0.2"],
      ["another port of localhost (same-site)", "localhost"],
    ])(
      "refuses a sign-in posted from a page on %s",
      async (_case, host) => {
        const port = await freePort();
        await new Promise<void>((resolve) => attacker.listen(port, host === "localhost" ? "127.0.0.1" : host, resolve));
        try {
          const page = await context.newPage();
          await page.goto(readmeAuthorizationUrl(pkce().challenge));
          const action = await page.locator('form[action$="/login"]').getAttribute("action");
          attackerPage = `<!doctype html><form method="post" action="${origin}${action}">
<input name="username" value="${sam.username}"><input name="password" value="${sam.password}">
<button type="submit">Win a prize</button></form>`;
          await page.goto(`http://${host}:${port}/`);
          const [posted] = await Promise.all([
            page.waitForResponse((response) => response.url() === `${origin}${action}`),
            page.getByRole("button", { name: "Win a prize" }).click(),
          ]);
          expect(posted.status()).toBe(400);
          await page.getByText("This form was posted from another site").waitFor();
        } finally {
          await new Promise((resolve) => attacker.close(resolve));
        }
      },
      60_000,
    );
  });
});
