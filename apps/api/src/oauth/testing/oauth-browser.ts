/**
 * What a browser does during the authorization-code flow, reduced to HTTP: follows redirects
 * within the authorization server, keeps its cookies, and posts the login and consent forms.
 * It stops at the first redirect that leaves the server (the client's redirect URI).
 */
export class OAuthBrowser {
  private readonly cookies = new Map<string, string>();

  /** `headers` go with every request (a test sets X-Forwarded-For to act from another address). */
  constructor(
    private readonly serverOrigin: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  async fetch(
    url: string | URL,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { ...this.headers, ...init.headers };
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    }
    let body: string | undefined;
    if (init.form !== undefined) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(url, { method: init.method ?? "GET", headers, body, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";");
      const index = pair.indexOf("=");
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Follows redirects inside the server; returns the last page, or the URL that leaves the server. */
  async follow(response: Response, from: string): Promise<{ page?: Response; pageUrl: string; leftTo?: URL }> {
    let current = response;
    let url = from;
    for (let hops = 0; hops < 10; hops++) {
      const location = current.headers.get("location");
      if (current.status < 300 || current.status >= 400 || location === null) return { page: current, pageUrl: url };
      const next = new URL(location, url);
      if (next.origin !== this.serverOrigin || !next.pathname.startsWith("/oauth/")) {
        return { pageUrl: url, leftTo: next };
      }
      url = next.toString();
      current = await this.fetch(url);
    }
    throw new Error("too many redirects");
  }

  /** Opens the authorization URL at the sign-in page; returns the URL its login form posts to. */
  async openSignIn(authorizationUrl: URL): Promise<URL> {
    const step = await this.follow(await this.fetch(authorizationUrl), authorizationUrl.toString());
    return new URL(OAuthBrowser.formAction((await step.page?.text()) ?? "", "/login"), this.serverOrigin);
  }

  /** The action of the page's form whose action ends with `suffix`. */
  static formAction(html: string, suffix: string): string {
    const action = [...html.matchAll(/<form method="post" action="([^"]+)"/g)]
      .map((m) => m[1] ?? "")
      .find((a) => a.endsWith(suffix));
    if (action === undefined) throw new Error(`no form posting to *${suffix} in:\n${html}`);
    return action;
  }
}

/**
 * Opens the authorization URL, signs in and allows access; returns where the server sent the
 * browser back to (the redirect URI with `code` and `state`).
 */
export async function signInAndConsent(
  browser: OAuthBrowser,
  authorizationUrl: URL,
  credentials: { username: string; password: string },
  origin: string,
): Promise<URL> {
  let step = await browser.follow(await browser.fetch(authorizationUrl), authorizationUrl.toString());
  for (let round = 0; round < 3; round++) {
    if (step.leftTo !== undefined) return step.leftTo;
    const html = (await step.page?.text()) ?? "";
    if (html.includes('/login"')) {
      const action = new URL(OAuthBrowser.formAction(html, "/login"), origin);
      step = await browser.follow(
        await browser.fetch(action, { method: "POST", form: credentials }),
        action.toString(),
      );
    } else if (html.includes('/confirm"')) {
      const action = new URL(OAuthBrowser.formAction(html, "/confirm"), origin);
      step = await browser.follow(await browser.fetch(action, { method: "POST", form: {} }), action.toString());
    } else {
      throw new Error(`unexpected page (${step.page?.status}):\n${html}`);
    }
  }
  throw new Error("the flow did not come back to the client");
}
