/**
 * graphile-worker is ESM-only: loaded with a dynamic import (kept as a real import() by
 * TypeScript's node16 module mode and by the test transform), as jose is (auth/jose.ts).
 */
type GraphileWorker = typeof import("graphile-worker", { with: { "resolution-mode": "import" }});
export type Runner = import("graphile-worker", { with: { "resolution-mode": "import" }}).Runner;

let loading: Promise<GraphileWorker> | undefined;

export function loadGraphileWorker(): Promise<GraphileWorker> {
  loading ??= import("graphile-worker");
  return loading;
}
