/**
 * jose is ESM-only: loaded with a dynamic import (kept as a real import() by TypeScript's node16
 * module mode and by the test transform) so that this CommonJS code and jest both take it. Its
 * types are re-exported from here, since a type-only import of an ES module needs an attribute.
 */
type Jose = typeof import("jose", { with: { "resolution-mode": "import" }});
export type JWK = import("jose", { with: { "resolution-mode": "import" }}).JWK;
export type JWTPayload = import("jose", { with: { "resolution-mode": "import" }}).JWTPayload;
export type JWTVerifyGetKey = import("jose", { with: { "resolution-mode": "import" }}).JWTVerifyGetKey;

let loading: Promise<Jose> | undefined;

export function loadJose(): Promise<Jose> {
  loading ??= import("jose");
  return loading;
}
