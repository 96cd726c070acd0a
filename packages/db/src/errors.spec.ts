import { CircuitOpenError } from "./circuit-breaker";
import { databaseFailure, isDatabaseUnavailableError, PoolSaturatedError } from "./errors";

describe(isDatabaseUnavailableError.name, () => {
  it.each([
    ["a refused connection", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })],
    ["a connect timeout", new Error("timeout exceeded when trying to connect")],
    ["a dropped connection", new Error("Connection terminated unexpectedly")],
    ["a server shutting down (57P01)", Object.assign(new Error("terminating connection"), { code: "57P01" })],
    ["Prisma's P1001", Object.assign(new Error("Can't reach database server"), { code: "P1001" })],
    ["an exhausted pool (Prisma P2028)", Object.assign(new Error("Unable to start a transaction"), { code: "P2028" })],
    [
      "a wrapped driver error",
      new Error("query failed", { cause: Object.assign(new Error("x"), { code: "ECONNRESET" }) }),
    ],
    [
      "a Prisma driver-adapter error",
      Object.assign(new Error("adapter"), { meta: { driverAdapterError: new Error("Connection terminated") } }),
    ],
  ])("is true for %s", (_name, error) => {
    expect(isDatabaseUnavailableError(error)).toBe(true);
  });

  it.each([
    ["a syntax error", Object.assign(new Error('syntax error at or near "SELEC"'), { code: "42601" })],
    ["a unique violation", Object.assign(new Error("duplicate key"), { code: "23505" })],
    ["a plain bug", new TypeError("cannot read properties of undefined")],
    ["a string", "ECONNREFUSED"],
    ["null", null],
  ])("is false for %s", (_name, error) => {
    expect(isDatabaseUnavailableError(error)).toBe(false);
  });

  it("stops on a cyclic cause chain", () => {
    const error: Error & { cause?: unknown } = new Error("loop");
    error.cause = error;
    expect(isDatabaseUnavailableError(error)).toBe(false);
  });
});

describe(databaseFailure.name, () => {
  it.each([
    ["a refused connection", Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }), "unreachable"],
    ["a connect timeout", new Error("timeout exceeded when trying to connect"), "unreachable"],
    ["an open circuit breaker", new CircuitOpenError("the database"), "circuit-open"],
    ["a full pool", new PoolSaturatedError(new Error("timeout exceeded when trying to connect")), "saturated"],
    [
      "a statement timeout (57014)",
      Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" }),
      "saturated",
    ],
    [
      "a lock timeout (55P03)",
      Object.assign(new Error("canceling statement due to lock timeout"), { code: "55P03" }),
      "saturated",
    ],
    ["pg's client-side query timeout", new Error("Query read timeout"), "saturated"],
    [
      "a lock timeout inside a Prisma driver-adapter error",
      Object.assign(new Error("adapter"), {
        meta: { driverAdapterError: Object.assign(new Error("x"), { code: "55P03" }) },
      }),
      "saturated",
    ],
    [
      "a unix socket that is not there",
      Object.assign(new Error("connect ENOENT /run/postgresql/.s.PGSQL.5432"), { code: "ENOENT", syscall: "connect" }),
      "unreachable",
    ],
    [
      "Prisma's error for a missing socket",
      new Error("Invalid `prisma.oAuthKey.findMany()` invocation:\n\nconnect ENOENT /run/postgresql/.s.PGSQL.5432"),
      "unreachable",
    ],
    [
      "a missing file",
      Object.assign(new Error("ENOENT: no such file or directory, open '/x'"), { code: "ENOENT", syscall: "open" }),
      undefined,
    ],
    ["a syntax error", Object.assign(new Error("syntax error"), { code: "42601" }), undefined],
  ])("classifies %s", (_name, error, failure) => {
    expect(databaseFailure(error)).toBe(failure);
  });
});
