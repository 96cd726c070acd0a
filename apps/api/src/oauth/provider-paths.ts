import type { Provider } from "./oidc-provider.types";

/** The provider's named routes (oidc-provider's lib/helpers/initialize_app.js); unregistered ones are skipped. */
const ROUTE_NAMES = [
  "authorization",
  "resume",
  "userinfo",
  "token",
  "jwks",
  "discovery",
  "openid_credential_issuer",
  "credential",
  "challenge",
  "registration",
  "client",
  "revocation",
  "introspection",
  "end_session",
  "end_session_confirm",
  "end_session_success",
  "device_authorization",
  "code_verification",
  "device_resume",
  "pushed_authorization_request",
  "backchannel_authentication",
];
/** A second path of the discovery route, which pathFor cannot name (it gives the first). */
const UNNAMED_PATHS = ["/.well-known/openid-configuration"];

/** Stand for the route parameters while the templates are read; pathFor percent-encodes them. */
const PARAMETERS = { uid: "\u0000", clientId: "\u0001" };
const PARAMETER_SEGMENTS = new Map(
  Object.entries(PARAMETERS).map(([name, value]) => [encodeURIComponent(value), name]),
);

/**
 * The exact spellings of the provider's routes, relative to its mount path. oidc-provider matches
 * paths case-insensitively and ignores a trailing slash; the api's guards and limits compare them
 * exactly, so only these spellings are handed to it.
 */
export class ProviderPaths {
  private readonly templates: string[][];

  constructor(provider: Provider) {
    const paths = new Set(UNNAMED_PATHS);
    for (const name of ROUTE_NAMES) {
      try {
        paths.add(provider.pathFor(name, { mountPath: "", ...PARAMETERS } as { mountPath: string }));
      } catch {
        // Not registered: the feature is off.
      }
    }
    this.templates = [...paths].map((path) => path.split("/"));
  }

  /**
   * The template (`/auth/:uid`) of the route whose own spelling `path` (without the mount path and
   * the query) is, for the logs and metrics; undefined for any other path.
   */
  templateOf(path: string): string | undefined {
    const segments = path.split("/");
    const template = this.templates.find(
      (parts) =>
        parts.length === segments.length &&
        parts.every((part, i) => (PARAMETER_SEGMENTS.has(part) ? segments[i] !== "" : part === segments[i])),
    );
    return template
      ?.map((part) => (PARAMETER_SEGMENTS.has(part) ? `:${PARAMETER_SEGMENTS.get(part)}` : part))
      .join("/");
  }
}
