import { readFileSync } from "node:fs";
import { DEMO_OAUTH_CLIENTS, DEMO_TOKENS } from "@community/fixtures";
import request from "supertest";
import { startE2eApp } from "../testing/e2e-app";
import { appForSuite } from "../testing/suite-app";
import { DOCS_CONTENT_SECURITY_POLICY } from "./docs.controller";
import { OPENAPI_FILE } from "./openapi-file";

describe("API documentation", () => {
  const e2e = appForSuite(() => startE2eApp("postgres"));

  it("serves the committed OpenAPI document at /openapi.json as application/json", async () => {
    const response = await request(e2e.server).get("/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(response.text)).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, "utf8")));
  });

  it("serves Swagger UI at /docs with every asset from this origin", async () => {
    const page = await request(e2e.server).get("/docs");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(assets).toContain("/docs/swagger-ui-bundle.js");
    for (const asset of assets) {
      expect(asset).toMatch(/^\/docs\//);
      expect((await request(e2e.server).get(asset)).status).toBe(200);
    }
    expect(page.text).not.toMatch(/<script>/);
  });

  it("points Swagger UI at /openapi.json with the authorization-code flow and PKCE", async () => {
    const script = await request(e2e.server).get("/docs/swagger-initializer.js");
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.text).toContain('url: "/openapi.json"');
    expect(script.text).toContain('"usePkceWithAuthorizationCodeGrant":true');
    expect(script.text).toContain('"scopes":["community:read"]');
    expect(script.text).toContain(`"clientId":"${DEMO_OAUTH_CLIENTS.public.clientId}"`);
    expect(script.text).toContain('"/docs/oauth2-redirect.html"');
    expect((await request(e2e.server).get("/docs/oauth2-redirect.html")).status).toBe(200);
  });

  it("gives the UI a same-origin Content-Security-Policy and keeps default-src 'none' on the API", async () => {
    for (const path of ["/docs", "/docs/swagger-ui-bundle.js", "/docs/oauth2-redirect.html"]) {
      const csp = (await request(e2e.server).get(path)).headers["content-security-policy"];
      expect(csp).toBe(DOCS_CONTENT_SECURITY_POLICY);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/unsafe-eval|https?:/);
    }
    const api = await request(e2e.server)
      .get("/v1/me/community/team/events")
      .set("Authorization", `Bearer ${DEMO_TOKENS.runners.token}`);
    expect(api.headers["content-security-policy"]).toBe("default-src 'none';frame-ancestors 'none'");
  });

  it("answers an unknown file under /docs with the 404 problem", async () => {
    const response = await request(e2e.server).get("/docs/nothing-here.js");
    expect(response.status).toBe(404);
    expect(response.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
  });
});
