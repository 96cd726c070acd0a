import type { Server } from "node:http";
import { createServer } from "node:net";
import type { FixtureFile } from "@community/domain";
import { type Backend, type E2eApp, startE2eApp } from "./e2e-app";

export interface OAuthE2eApp extends E2eApp {
  /** http://127.0.0.1:<port>: the api's PUBLIC_URL, and the built-in server's audience. */
  origin: string;
  issuer: string;
}

/** A free loopback port (the issuer URL must be known before the app is built). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

/**
 * The e2e app listening on a real loopback port, with PUBLIC_URL set to it, so that a client
 * (openid-client) can discover the built-in authorization server and run the flow over HTTP.
 */
export async function startOAuthApp(
  backend: Backend,
  fixture: FixtureFile,
  env: NodeJS.ProcessEnv = {},
): Promise<OAuthE2eApp> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const e2e = await startE2eApp(backend, fixture, { env: { PUBLIC_URL: origin, ...env } });
  await new Promise<void>((resolve, reject) => {
    const server = e2e.app.getHttpServer() as Server;
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return { ...e2e, origin, issuer: `${origin}/oauth` };
}
