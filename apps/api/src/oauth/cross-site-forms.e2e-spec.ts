import { oauthFixture, PUBLIC_CLIENT, RUNNER } from "../testing/oauth-fixture";
import { appForSuite } from "../testing/suite-app";
import { startOAuthApp } from "./testing/oauth-app";
import { OAuthBrowser, signInAndConsent } from "./testing/oauth-browser";
import { authorizationRequest, discoverAs, loadOpenIdClient } from "./testing/oauth-client";

/**
 * The sign-in and consent forms accept posts from the server's own pages only: a page elsewhere
 * that posts to them with the browser's cookies (SameSite=Lax lets a top-level POST through in
 * some browsers) is refused by its Sec-Fetch-Site header, or by its Origin in a browser that sends
 * no Sec-Fetch-Site. A real Chromium's posts: browser-sign-in.e2e-spec.ts.
 */
describe("cross-site posts to the sign-in forms", () => {
  const e2e = appForSuite(() => startOAuthApp("postgres", oauthFixture()), 120_000);

  /** A browser at the sign-in page of a fresh authorization request, and the login form's URL. */
  async function atSignIn(headers: Record<string, string>) {
    const oidc = await loadOpenIdClient();
    const client = await discoverAs(oidc, e2e.issuer, PUBLIC_CLIENT.clientId);
    const { url } = await authorizationRequest(oidc, client);
    const browser = new OAuthBrowser(e2e.origin, headers);
    return { browser, action: await browser.openSignIn(url), url };
  }

  it.each([
    ["Origin names another site", { origin: "https://evil.example" }],
    ["Origin is null, without Sec-Fetch-Site (an older browser, from a sandboxed page)", { origin: "null" }],
    ["Origin is null and Sec-Fetch-Site cross-site", { origin: "null", "sec-fetch-site": "cross-site" }],
    ["Sec-Fetch-Site is cross-site", { "sec-fetch-site": "cross-site" }],
    ["Sec-Fetch-Site is same-site (another origin of the site)", { "sec-fetch-site": "same-site" }],
  ])("refuses a sign-in whose %s", async (_case, headers) => {
    const { browser, action } = await atSignIn(headers);
    const response = await browser.fetch(action, { method: "POST", form: RUNNER });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("posted from another site");
  });

  it("refuses a cross-site consent", async () => {
    const { browser, action: login } = await atSignIn({});
    const step = await browser.follow(await browser.fetch(login, { method: "POST", form: RUNNER }), login.toString());
    const confirm = new URL(OAuthBrowser.formAction((await step.page?.text()) ?? "", "/confirm"), e2e.origin);
    const response = await browser.fetch(confirm, {
      method: "POST",
      form: {},
      headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("posted from another site");
  });

  it("accepts posts from its own pages (same origin, Origin null or not) and from clients that send neither header", async () => {
    const oidc = await loadOpenIdClient();
    const client = await discoverAs(oidc, e2e.issuer, PUBLIC_CLIENT.clientId);
    const variants: Record<string, string>[] = [
      { origin: e2e.origin, "sec-fetch-site": "same-origin" },
      // What Chromium sends from a page whose Referrer-Policy is no-referrer.
      { origin: "null", "sec-fetch-site": "same-origin" },
      { origin: e2e.origin },
      {},
    ];
    for (const headers of variants) {
      const { url } = await authorizationRequest(oidc, client);
      const callback = await signInAndConsent(new OAuthBrowser(e2e.origin, headers), url, RUNNER, e2e.origin);
      expect(callback.searchParams.get("code")).toEqual(expect.any(String));
    }
  });

  it("serves its pages with a referrer policy under which a browser's own posts keep their Origin", async () => {
    const { browser, url } = await atSignIn({});
    const page = await browser.fetch(new URL(url));
    const signIn = await browser.follow(page, url.toString());
    expect(signIn.page?.headers.get("referrer-policy")).toBe("same-origin");
  });
});
