import { READ_SCOPE } from "@community/domain";
import { REDIRECT_URI } from "../../testing/oauth-fixture";

/** openid-client, a client application's view of the authorization server (ESM-only, imported). */
export type OpenIdClient = typeof import("openid-client", { with: { "resolution-mode": "import" }});
export type ClientConfig = Awaited<ReturnType<OpenIdClient["discovery"]>>;

export function loadOpenIdClient(): Promise<OpenIdClient> {
  return import("openid-client");
}

/** Discovers the server as `clientId` (public unless `auth` says otherwise), over the tests' plain HTTP. */
export function discoverAs(
  oidc: OpenIdClient,
  issuer: string | URL,
  clientId: string,
  auth: ReturnType<OpenIdClient["None"]> = oidc.None(),
): Promise<ClientConfig> {
  return oidc.discovery(new URL(issuer), clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });
}

/**
 * An authorization request with PKCE (S256) for the read scope, back to REDIRECT_URI unless told
 * otherwise; returns it with the code verifier that the code exchange needs.
 */
export async function authorizationRequest(
  oidc: OpenIdClient,
  client: ClientConfig,
  params: { scope?: string; state?: string; redirect_uri?: string } = {},
): Promise<{ url: URL; verifier: string }> {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(client, {
    redirect_uri: REDIRECT_URI,
    scope: READ_SCOPE,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    ...params,
  });
  return { url, verifier };
}
