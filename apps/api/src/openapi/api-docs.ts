import { DEMO_OAUTH_CLIENTS } from "@community/fixtures";
import type { NestExpressApplication } from "@nestjs/platform-express";
import type { Express, Request, Response } from "express";
import { READ_SCOPE } from "../auth/scopes";
import { buildOpenApiDocument } from "./openapi-document";

// The package's index evaluates the whole Swagger UI bundle (about 40 MB of heap in the server);
// only the folder of its static files is needed here.
import getAbsoluteFSPath = require("swagger-ui-dist/absolute-path.js");

/** Page of the interactive documentation; every asset comes from this origin (CSP 'self', offline). */
const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Community team events and guides: API documentation</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="stylesheet" href="/docs/index.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/swagger-initializer.js"></script>
  </body>
</html>
`;

/** A script file, not an inline script, so that a Content-Security-Policy of script-src 'self' allows it. */
const INITIALIZER_JS = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    oauth2RedirectUrl: window.location.origin + "/docs/oauth2-redirect.html",
  });
  window.ui.initOAuth(${JSON.stringify({
    // The demo public client of the built-in authorization server (PKCE, no secret).
    clientId: DEMO_OAUTH_CLIENTS.public.clientId,
    scopes: [READ_SCOPE],
    usePkceWithAuthorizationCodeGrant: true,
  })});
};
`;

/** Swagger UI sets inline style attributes, and shows data: images; everything else is 'self'. */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * GET /openapi.json (the document that docs/openapi.json holds) and Swagger UI at GET /docs,
 * served from swagger-ui-dist. Registered before the Nest routes; other paths under /docs fall
 * through to the usual 404 problem.
 */
export function mountApiDocs(app: NestExpressApplication): void {
  const document = JSON.stringify(buildOpenApiDocument());
  const http = app.getHttpAdapter().getInstance() as Express;
  // Replaces the API's default-src 'none' policy for the UI: same-origin scripts, styles and calls only.
  http.use("/docs", (_request: Request, response: Response, next: () => void) => {
    response.setHeader("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
    next();
  });
  const send = (contentType: string, body: string) => (_request: Request, response: Response) => {
    response.status(200).type(contentType).send(body);
  };
  http.get("/openapi.json", send("application/json; charset=utf-8", document));
  http.get("/docs", send("text/html; charset=utf-8", INDEX_HTML));
  http.get("/docs/", send("text/html; charset=utf-8", INDEX_HTML));
  // Shadows swagger-ui-dist's own initializer, which points at the Petstore example.
  http.get("/docs/swagger-initializer.js", send("text/javascript; charset=utf-8", INITIALIZER_JS));
  app.useStaticAssets(getAbsoluteFSPath(), { prefix: "/docs/", index: false, redirect: false, fallthrough: true });
}
