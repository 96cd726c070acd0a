import { readdirSync } from "node:fs";
import { READ_SCOPE } from "@community/domain";
import { DEMO_OAUTH_CLIENTS } from "@community/fixtures";
import { Controller, Get, Inject, Param, Req, Res } from "@nestjs/common";
import { SkipThrottle } from "@nestjs/throttler";
import type { Request, Response } from "express";
import { NotFoundProblemException } from "../common/problems";
import { APP_CONFIG, type AppConfig } from "../config/config";
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

const SWAGGER_UI_DIR = getAbsoluteFSPath();

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * GET /openapi.json (the document that docs/openapi.json holds) and Swagger UI at GET /docs, its
 * assets served from swagger-ui-dist; other paths under /docs are the usual 404 problem. Neither
 * is rate limited.
 */
@Controller()
@SkipThrottle()
export class DocsController {
  private readonly document = JSON.stringify(buildOpenApiDocument());
  /** Only the files of the package's folder are served, so a path cannot leave it. */
  private readonly assets = new Set(
    readdirSync(SWAGGER_UI_DIR, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name),
  );

  @Get("openapi.json")
  openApi(@Res() response: Response): void {
    response.status(200).type("application/json; charset=utf-8").send(this.document);
  }

  /** Where the UI must run for its sign-in to work, when a loopback alias of it was asked for instead. */
  private readonly canonicalDocs: { host: string; port: string; url: string } | undefined;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const publicUrl = new URL(config.oauth.publicUrl);
    this.canonicalDocs = LOOPBACK_NAMES.has(publicUrl.hostname)
      ? { host: publicUrl.host, port: publicUrl.port, url: `${config.oauth.publicUrl}/docs` }
      : undefined;
  }

  @Get("docs")
  index(@Req() request: Request, @Res() response: Response): void {
    // The authorization server's cookies belong to PUBLIC_URL's host: Swagger UI opened on another
    // name of this machine (127.0.0.1 for localhost) would sign in on one host and hold the cookies
    // of another, so it moves to PUBLIC_URL first. The target is fixed: nothing of the request in it.
    const asked = request.headers.host;
    if (this.canonicalDocs !== undefined && asked !== undefined && asked !== this.canonicalDocs.host) {
      const askedUrl = new URL(`http://${asked}`);
      const sameServer = askedUrl.port === this.canonicalDocs.port;
      if (sameServer && LOOPBACK_NAMES.has(askedUrl.hostname)) {
        response.redirect(302, this.canonicalDocs.url);
        return;
      }
    }
    docsPage(response).type("text/html; charset=utf-8").send(INDEX_HTML);
  }

  // Shadows swagger-ui-dist's own initializer, which points at the Petstore example.
  @Get("docs/swagger-initializer.js")
  initializer(@Res() response: Response): void {
    docsPage(response).type("text/javascript; charset=utf-8").send(INITIALIZER_JS);
  }

  @Get("docs/:file")
  asset(@Param("file") file: string, @Res() response: Response): void {
    if (!this.assets.has(file)) throw new NotFoundProblemException(`No resource at GET /docs/${file}`);
    docsPage(response).sendFile(file, { root: SWAGGER_UI_DIR });
  }
}

/** Replaces the API's default-src 'none' policy for the UI: same-origin scripts, styles and calls only. */
function docsPage(response: Response): Response {
  return response.status(200).setHeader("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
}
