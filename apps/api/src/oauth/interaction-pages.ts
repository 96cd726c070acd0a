/** The minimal HTML pages of the authorization server: login, consent, errors, demo callback. */

const html = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/** The pages' own policy: their one inline style block, nothing loaded from anywhere. */
export const PAGE_CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(title)}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 26rem; margin: 4rem auto; padding: 0 1rem; color: #222; }
label, input, button { display: block; width: 100%; box-sizing: border-box; font-size: 1rem; }
input { padding: .5rem; margin: .25rem 0 1rem; }
button { padding: .6rem; margin-top: .5rem; cursor: pointer; }
.error { color: #a40000; } code { word-break: break-all; }
</style>
</head>
<body>
<h1>${html(title)}</h1>
${body}
</body>
</html>`;
}

export function loginPage(uid: string, clientName: string, error?: string, userId = ""): string {
  return page(
    "Sign in",
    `<p>to continue to <strong>${html(clientName)}</strong></p>
${error === undefined ? "" : `<p class="error" role="alert">${html(error)}</p>`}
<form method="post" action="/oauth/interaction/${html(uid)}/login">
<label for="username">User id</label>
<input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus value="${html(userId)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<form method="post" action="/oauth/interaction/${html(uid)}/abort"><button type="submit">Cancel</button></form>`,
  );
}

export function consentPage(uid: string, clientName: string, userName: string, scopes: string[]): string {
  const items = scopes.map((scope) => `<li><code>${html(scope)}</code></li>`).join("");
  return page(
    "Allow access?",
    `<p><strong>${html(clientName)}</strong> asks to act as <strong>${html(userName)}</strong> with:</p>
<ul>${items}</ul>
<form method="post" action="/oauth/interaction/${html(uid)}/confirm"><button type="submit" autofocus>Allow</button></form>
<form method="post" action="/oauth/interaction/${html(uid)}/abort"><button type="submit">Deny</button></form>`,
  );
}

export function errorPage(message: string): string {
  return page("Cannot continue", `<p class="error">${html(message)}</p><p>Start again from the application.</p>`);
}

/** The provider's sign-out question; `form` is its own (hidden xsrf field), which the buttons submit. */
export function signOutPage(host: string, form: string): string {
  return page(
    "Sign out?",
    `<p>Sign out from <strong>${html(host)}</strong>? The applications you allowed lose their access.</p>
${form}
<button type="submit" form="op.logoutForm" value="yes" name="logout" autofocus>Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button>`,
  );
}

export function signedOutPage(): string {
  return page("Signed out", "<p>Your sign-out was successful.</p>");
}

/** Where the demo clients are sent back to: shows the code, for the curl walk-through. */
export function callbackPage(params: URLSearchParams): string {
  const rows = [...params].map(([name, value]) => `<dt>${html(name)}</dt><dd><code>${html(value)}</code></dd>`);
  return page(
    "Authorization response",
    `<dl>${rows.join("")}</dl><p>Exchange the <code>code</code> at <code>/oauth/token</code> within a minute (README, "Getting a token").</p>`,
  );
}
