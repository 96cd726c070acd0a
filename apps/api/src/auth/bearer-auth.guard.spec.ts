import { READ_SCOPE } from "@community/domain";
import type { ExecutionContext } from "@nestjs/common";
import passport from "passport";
import { InsufficientScopeException, InvalidTokenException, MissingCredentialsException } from "./auth.problems";
import type { BearerStrategy } from "./bearer.strategy";
import { BearerAuthGuard, bearerToken } from "./bearer-auth.guard";
import type { Member } from "./member";

const MEMBER: Member = { userId: "u1", teamId: "t1", clientId: "c1", scopes: null };

/** The guard over a strategy that knows one token. */
function guardFor(tokens: Record<string, Member>) {
  const seen: string[] = [];
  const strategy = {
    validate: async (token: string) => {
      seen.push(token);
      return tokens[token] ?? false;
    },
  } as unknown as BearerStrategy;
  return { guard: new BearerAuthGuard(strategy), seen };
}

function contextOf(request: Record<string, unknown>): ExecutionContext {
  return { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
}

describe("bearerToken", () => {
  // passport-http-bearer's reading, which the guard keeps: anything else is no token.
  it.each([
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["BEARER abc", "abc"],
    ["Bearer a.b-c_d~e+f/g=", "a.b-c_d~e+f/g="],
  ])("reads %j as %j", (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });

  it.each([
    [undefined],
    [""],
    ["Bearer"],
    ["Bearer "],
    ["Bearer  abc"],
    ["Bearer abc def"],
    ["Bearer\tabc"],
    [" Bearer abc"],
    ["Basic abc"],
    ["Bearerabc"],
  ])("reads no token from %j", (header) => {
    expect(bearerToken(header)).toBeUndefined();
  });
});

describe("BearerAuthGuard", () => {
  it("admits a known token and puts its member on the request", async () => {
    const { guard, seen } = guardFor({ good: MEMBER });
    const request: Record<string, unknown> = { headers: { authorization: "Bearer good" } };
    await expect(guard.canActivate(contextOf(request))).resolves.toBe(true);
    expect(request.member).toBe(MEMBER);
    expect(seen).toEqual(["good"]);
  });

  it("answers a missing token with the plain challenge, without asking the strategy", async () => {
    const { guard, seen } = guardFor({ good: MEMBER });
    await expect(guard.canActivate(contextOf({ headers: {} }))).rejects.toBeInstanceOf(MissingCredentialsException);
    expect(seen).toEqual([]);
  });

  it("answers an unknown token, or a bearer header it cannot read, with invalid_token", async () => {
    const { guard, seen } = guardFor({ good: MEMBER });
    await expect(guard.canActivate(contextOf({ headers: { authorization: "Bearer bad" } }))).rejects.toBeInstanceOf(
      InvalidTokenException,
    );
    await expect(
      guard.canActivate(contextOf({ headers: { authorization: "Bearer good extra" } })),
    ).rejects.toBeInstanceOf(InvalidTokenException);
    expect(seen).toEqual(["bad"]);
  });

  it("answers a token without the read scope with insufficient_scope", async () => {
    const { guard } = guardFor({
      narrow: { ...MEMBER, scopes: new Set(["other"]) },
      wide: { ...MEMBER, scopes: new Set([READ_SCOPE]) },
    });
    await expect(guard.canActivate(contextOf({ headers: { authorization: "Bearer narrow" } }))).rejects.toBeInstanceOf(
      InsufficientScopeException,
    );
    await expect(guard.canActivate(contextOf({ headers: { authorization: "Bearer wide" } }))).resolves.toBe(true);
  });

  it("lets a failure of the strategy (the database) through as it is", async () => {
    const failure = new Error("database down");
    const strategy = { validate: async () => Promise.reject(failure) } as unknown as BearerStrategy;
    const guard = new BearerAuthGuard(strategy);
    await expect(guard.canActivate(contextOf({ headers: { authorization: "Bearer any" } }))).rejects.toBe(failure);
  });

  // passport.authenticate makes a strategy object and five closures per request, which kept every
  // request's objects alive past young-generation collections (bench/README.md).
  it("does not go through passport.authenticate", async () => {
    const authenticate = jest.spyOn(passport, "authenticate");
    try {
      const { guard } = guardFor({ good: MEMBER });
      await guard.canActivate(contextOf({ headers: { authorization: "Bearer good" } }));
      await guard.canActivate(contextOf({ headers: { authorization: "Bearer bad" } })).catch(() => undefined);
      expect(authenticate).not.toHaveBeenCalled();
    } finally {
      authenticate.mockRestore();
    }
  });
});
