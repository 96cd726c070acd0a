import { readFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { OPENAPI_FILE } from "../openapi/openapi-file";
import { type ObservedResponse, OpenApiContract } from "./openapi-contract";

let contract: OpenApiContract | undefined;
const pending: string[] = [];
const watched = new WeakSet<Server>();

/** The committed document: the one that users get and that the generator test keeps in sync. */
function committedContract(): OpenApiContract {
  contract ??= new OpenApiContract(JSON.parse(readFileSync(OPENAPI_FILE, "utf8")) as Record<string, unknown>);
  return contract;
}

/**
 * Checks every response `server` writes against the OpenAPI document, synchronously before its
 * last byte leaves, so a violation is recorded before the test sees the response. The e2e harness
 * fails the running test when `takeContractViolations()` returns anything.
 */
export function watchContract(server: Server, check: (response: ObservedResponse) => string[] = defaultCheck): void {
  if (watched.has(server)) return;
  watched.add(server);
  server.prependListener("request", (request: IncomingMessage, response: ServerResponse) => {
    // Read now: routers rewrite request.url below a mount path.
    const url = request.url ?? "/";
    const chunks: Buffer[] = [];
    const toBuffer = (chunk: unknown, encoding: unknown) =>
      Buffer.isBuffer(chunk)
        ? chunk
        : typeof chunk === "string"
          ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
          : Buffer.from(chunk as Uint8Array);
    const write = response.write.bind(response) as (...args: unknown[]) => boolean;
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, rest[0]));
      return write(chunk, ...rest);
    }) as typeof response.write;
    response.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (chunk !== undefined && chunk !== null && typeof chunk !== "function") chunks.push(toBuffer(chunk, rest[0]));
      const observed = {
        method: request.method ?? "GET",
        url,
        status: response.statusCode,
        headers: response.getHeaders(),
        body: Buffer.concat(chunks),
      };
      try {
        pending.push(...check(observed));
      } catch (error) {
        // A failing check must fail the test, never change the response under test.
        pending.push(`${observed.method} ${observed.url}: the contract check failed: ${String(error)}`);
      }
      return end(chunk, ...rest);
    }) as typeof response.end;
  });
}

function defaultCheck(response: ObservedResponse): string[] {
  const verdict = committedContract().check(response);
  return verdict.kind === "checked" ? verdict.violations : [];
}

/** The violations recorded since the last call. */
export function takeContractViolations(): string[] {
  return pending.splice(0, pending.length);
}

export class ContractViolationError extends Error {
  constructor(violations: string[]) {
    super(`responses that contradict docs/openapi.json:\n  ${violations.join("\n  ")}`);
    this.name = "ContractViolationError";
  }
}

/** Throws when a response since the last call contradicted the document. */
export function assertContractKept(): void {
  const violations = takeContractViolations();
  if (violations.length > 0) throw new ContractViolationError(violations);
}
