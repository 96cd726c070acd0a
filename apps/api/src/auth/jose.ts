/**
 * jose is ESM-only: loaded with a dynamic import (kept as a real import() by TypeScript's node16
 * module mode) so that this CommonJS code and jest's module loader both take it.
 */
type Jose = typeof import("jose", { with: { "resolution-mode": "import" }});

let loading: Promise<Jose> | undefined;

export function loadJose(): Promise<Jose> {
  loading ??= import("jose");
  return loading;
}
