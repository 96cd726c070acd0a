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

/** Stands for a route parameter while the templates are read; pathFor percent-encodes it. */
const PARAMETER = "\u0000";
const PARAMETER_SEGMENT = encodeURIComponent(PARAMETER);

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
        paths.add(
          provider.pathFor(name, { mountPath: "", uid: PARAMETER, clientId: PARAMETER } as { mountPath: string }),
        );
      } catch {
        // Not registered: the feature is off.
      }
    }
    this.templates = [...paths].map((path) => path.split("/"));
  }

  /** Whether `path` (without the mount path and the query) is one route's own spelling. */
  has(path: string): boolean {
    const segments = path.split("/");
    return this.templates.some(
      (template) =>
        template.length === segments.length &&
        template.every((part, i) => (part === PARAMETER_SEGMENT ? segments[i] !== "" : part === segments[i])),
    );
  }
}
