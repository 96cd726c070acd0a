import type { Server } from "node:http";
import type { FixtureFile } from "@community/domain";
import { type Backend, type E2eApp, startE2eApp } from "../../testing/e2e-app";
import { freePort } from "../../testing/free-port";

export interface OAuthE2eApp extends E2eApp {
  /** http://127.0.0.1:<port>: the api's PUBLIC_URL, and the built-in server's audience. */
  origin: string;
  issuer: string;
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
