import { rawQueryPlan, rawQueryPlanOfRequest } from "@prisma/client/runtime/raw-query-plan";
import { seededRandom } from "./testing";

/**
 * The raw-query planner that patches/@prisma__client@6.19.3.patch adds to the Prisma client,
 * held against its oracle: Prisma's own WebAssembly query compiler, which planned every raw query
 * before. For seeded random parameter lists of every kind that Prisma's serializeRawParameters
 * writes (and some it never writes), a plan made in JavaScript must equal the compiler's; where the
 * planner is not certain it returns undefined and the compiler plans the query as before.
 */

/** What this file uses of the WebAssembly API (its types come with the DOM library, which this package leaves out). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

interface QueryCompiler {
  compile(request: string): unknown;
}

function loadCompiler(): QueryCompiler {
  const runtime = require("@prisma/client/runtime/query_compiler_bg.postgresql.js");
  const { wasm } = require("@prisma/client/runtime/query_compiler_bg.postgresql.wasm-base64.js");
  const { Module, Instance } = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const instance = new Instance(new Module(Buffer.from(wasm, "base64")), { "./query_compiler_bg.js": runtime });
  runtime.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  const registry = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(message: string): void } };
  registry.PRISMA_WASM_PANIC_REGISTRY ??= {
    set_message(message: string) {
      throw new Error(`query compiler panicked: ${message}`);
    },
  };
  const datamodel = 'datasource db {\n  provider = "postgresql"\n  url = env("DATABASE_URL")\n}\n';
  return new runtime.QueryCompiler({
    datamodel,
    provider: "postgres",
    connectionInfo: { supportsRelationJoins: true },
  });
}

/** One parameter as serializeRawParameters writes it (tagged values for bigint, date, decimal, bytes), or stranger. */
function parameter(next: () => number, depth = 0): unknown {
  const pick = <T>(values: T[]): T => values[Math.floor(next() * values.length)] as T;
  switch (Math.floor(next() * 16)) {
    case 0:
      return Math.floor((next() - 0.5) * 2 ** 31);
    case 1:
      return pick([0, -0, 1, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 2 ** 60, 1e21, 1e300]);
    case 2:
      return pick([0.5, -1.25, 1e-7, Math.PI, 5e-324, 1.7976931348623157e308, (next() - 0.5) * 1e6]);
    case 3:
      return pick(["", "x", "events", 'quote " and \\', "é ✓ 🎉", "2026-11-27T10:00:00.000Z", "null", "{}"]);
    case 4:
      return next() < 0.5;
    case 5:
      return null;
    case 6:
      return { prisma__type: "bigint", prisma__value: pick(["0", "-1", "9223372036854775807", "123456789012345678"]) };
    case 7:
      return { prisma__type: "date", prisma__value: new Date(Math.floor(next() * 4e12)).toJSON() };
    case 8:
      return { prisma__type: "bytes", prisma__value: Buffer.from([next() * 256, next() * 256]).toString("base64") };
    case 9:
      return { prisma__type: "decimal", prisma__value: pick(["1.50", "0", "-12.345", "1e+30"]) };
    case 10:
      return pick([{ a: 1 }, { prisma__type: "bigint" }, { prisma__type: "other", prisma__value: "1" }, {}]);
    case 11:
    case 12: {
      // A list of one kind, as an int[] or text[] parameter would be: more values of the first's
      // type, or the first again when it is an object or null.
      const length = Math.floor(next() * 4);
      const first = parameter(next, depth + 1);
      const more = () => {
        const value = parameter(next, depth + 1);
        return typeof first !== "object" && typeof value === typeof first ? value : first;
      };
      return length === 0 ? [] : [first, ...Array.from({ length: length - 1 }, more)];
    }
    case 13:
      return depth > 1 ? 1 : Array.from({ length: 1 + Math.floor(next() * 3) }, () => parameter(next, depth + 1));
    case 14:
      return pick(["ünïcödé", "a\nb", "\u0000"]);
    default:
      return Math.floor(next() * 1000);
  }
}

const request = (action: string, sql: string, parameters: unknown[]) =>
  JSON.stringify({
    action,
    query: { arguments: { query: sql, parameters: JSON.stringify(parameters) }, selection: {} },
  });

describe("raw query plans made in JavaScript (the Prisma client patch)", () => {
  let compiler: QueryCompiler;

  beforeAll(() => {
    compiler = loadCompiler();
  });

  /** The compiler's plan, or the error it gives. */
  const compiled = (text: string): { plan?: unknown; error?: unknown } => {
    try {
      return { plan: compiler.compile(text) };
    } catch (error) {
      return { error };
    }
  };

  it("plans what the query compiler plans, for seeded random parameter lists, and defers the rest to it", () => {
    const seed = Number(process.env.ORACLE_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const next = seededRandom(seed);
    let planned = 0;
    let deferred = 0;
    for (let i = 0; i < 3000; i += 1) {
      const parameters = Array.from({ length: Math.floor(next() * 5) }, () => parameter(next));
      const action = next() < 0.8 ? "queryRaw" : "executeRaw";
      const text = request(action, `SELECT ${parameters.map((_, n) => `$${n + 1}`).join(", ") || "1"}`, parameters);
      const ours = rawQueryPlanOfRequest(text);
      if (ours === undefined) {
        deferred += 1;
        continue;
      }
      planned += 1;
      const theirs = compiled(text);
      if (theirs.error !== undefined || JSON.stringify(theirs.plan) !== JSON.stringify(ours)) {
        throw new Error(
          `seed ${seed} (ORACLE_SEED replays it), case ${i}: ${text}\n` +
            `planned ${JSON.stringify(ours)}\ncompiler ${theirs.error === undefined ? JSON.stringify(theirs.plan) : String(theirs.error)}`,
        );
      }
      expect(ours).toEqual(theirs.plan);
    }
    process.stdout.write(`raw query plans: seed ${seed}, ${planned} planned in JavaScript, ${deferred} deferred\n`);
    // Both paths were taken, so neither side of the comparison went unexercised.
    expect(planned).toBeGreaterThan(500);
    expect(deferred).toBeGreaterThan(100);
  });

  it("plans every kind of parameter the list statements send, as the compiler does", () => {
    const cases: unknown[][] = [
      ["a0c5e2b1f4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7"],
      ["team-1", "events", 100, 0],
      ["team-1", "events", 25, 975, ["live", "scheduled"], "2026-01-01T00:00:00.000Z"],
      ["team-1", { prisma__type: "bigint", prisma__value: "9007199254740993" }, null, true, -7],
      [
        { prisma__type: "date", prisma__value: "2026-11-27T10:02:16.721Z" },
        { prisma__type: "bytes", prisma__value: "AAEC" },
      ],
      [[1, 2, 3], ["a", "b"], [true, false], [{ prisma__type: "bigint", prisma__value: "1" }]],
      [],
    ];
    for (const parameters of cases) {
      for (const action of ["queryRaw", "executeRaw"]) {
        const text = request(action, "SELECT 1", parameters);
        const ours = rawQueryPlanOfRequest(text);
        expect(ours).toBeDefined();
        expect(ours).toEqual(compiled(text).plan);
      }
    }
  });

  it("leaves to the compiler what it alone decides: floats, decimals, JSON objects, mixed, empty or nested lists, unsafe integers", () => {
    for (const parameters of [
      [{ prisma__type: "decimal", prisma__value: "1.50" }],
      [1.5],
      [[0.5]],
      [{ a: 1 }],
      [[1, "a"]],
      [[]],
      [[null]],
      [[[1]]],
      [2 ** 60],
      [{ prisma__type: "bigint" }],
    ]) {
      expect(rawQueryPlanOfRequest(request("queryRaw", "SELECT $1", parameters))).toBeUndefined();
    }
  });

  it("plans no request but a raw query's", () => {
    const findMany = JSON.stringify({
      modelName: "Team",
      action: "findMany",
      query: { selection: { $scalars: true } },
    });
    expect(rawQueryPlanOfRequest(findMany)).toBeUndefined();
    expect(
      rawQueryPlan({ action: "findMany", query: { arguments: { query: "SELECT 1", parameters: "[]" } } }),
    ).toBeUndefined();
    expect(rawQueryPlan({ action: "queryRaw", query: { arguments: { query: "SELECT 1" } } })).toBeUndefined();
    expect(
      rawQueryPlan({ action: "queryRaw", query: { arguments: { query: "SELECT 1", parameters: "{" } } }),
    ).toBeUndefined();
  });
});
