import { READ_SCOPE } from "@community/domain";
import type { ExecutionContext } from "@nestjs/common";
import { Reflector } from "@nestjs/core";
import passport from "passport";
import { Strategy } from "passport-http-bearer";
import { Public } from "../common/public.decorator";
import { InsufficientScopeException, InvalidTokenException, MissingCredentialsException } from "./auth.problems";
import { BearerAuthGuard } from "./bearer-auth.guard";
import type { Member } from "./member";

const MEMBER: Member = { userId: "u1", teamId: "t1", clientId: "c1", scopes: null, tokenDigest: "d1" };

/** The guard over passport's "bearer" strategy (passport-http-bearer) that knows the given tokens. */
function guardFor(tokens: Record<string, Member>, failure?: Error) {
  const seen: string[] = [];
  passport.use(
    "bearer",
    new Strategy({ realm: "api" }, (token: string, done: (error: unknown, member?: Member | false) => void) => {
      seen.push(token);
      if (failure !== undefined) done(failure);
      else done(null, tokens[token] ?? false);
    }),
  );
  return { guard: new BearerAuthGuard(new Reflector()), seen };
}

class Routes {
  list(): void {}
  @Public()
  otherMethods(): void {}
}

function contextOf(request: Record<string, unknown>, handler: keyof Routes = "list"): ExecutionContext {
  return {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({}) }),
    getHandler: () => Routes.prototype[handler],
    getClass: () => Routes,
  } as unknown as ExecutionContext;
}

describe(BearerAuthGuard.name, () => {
  afterEach(() => {
    passport.unuse("bearer");
    jest.restoreAllMocks();
  });

  it("authenticates through passport.authenticate and puts the member on the request", async () => {
    const authenticate = jest.spyOn(passport, "authenticate");
    const { guard, seen } = guardFor({ good: MEMBER });
    const request: Record<string, unknown> = { headers: { authorization: "Bearer good" } };
    await expect(guard.canActivate(contextOf(request))).resolves.toBe(true);
    expect(request.user).toBe(MEMBER);
    expect(seen).toEqual(["good"]);
    expect(authenticate).toHaveBeenCalledTimes(1);
    expect(authenticate.mock.calls[0]?.[0]).toBe("bearer");
  });

  it("answers a missing token with the plain challenge, without asking the strategy's verify", async () => {
    const { guard, seen } = guardFor({ good: MEMBER });
    await expect(guard.canActivate(contextOf({ headers: {} }))).rejects.toBeInstanceOf(MissingCredentialsException);
    expect(seen).toEqual([]);
  });

  it("reads the token from the Authorization header only, never from the query string or a body", async () => {
    const { guard, seen } = guardFor({ good: MEMBER });
    const request = { headers: {}, query: { access_token: "good" }, body: { access_token: "good" } };
    await expect(guard.canActivate(contextOf(request))).rejects.toBeInstanceOf(MissingCredentialsException);
    expect(seen).toEqual([]);
  });

  it.each([
    ["Bearer bad", ["bad"]],
    ["bearer bad", ["bad"]],
    ["Bearer good extra", []],
    ["Bearer  good", []],
    ["Bearer\tgood", []],
  ])(
    "answers %j (unknown, or a bearer header passport-http-bearer cannot read) with invalid_token",
    async (header, verified) => {
      const { guard, seen } = guardFor({ good: MEMBER });
      await expect(guard.canActivate(contextOf({ headers: { authorization: header } }))).rejects.toBeInstanceOf(
        InvalidTokenException,
      );
      expect(seen).toEqual(verified);
    },
  );

  it.each(["Bearer", "Bearer ", "Basic abc", "Bearerabc"])("answers %j with the plain challenge", async (header) => {
    const { guard } = guardFor({ good: MEMBER });
    await expect(guard.canActivate(contextOf({ headers: { authorization: header } }))).rejects.toBeInstanceOf(
      MissingCredentialsException,
    );
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
    const { guard } = guardFor({}, failure);
    await expect(guard.canActivate(contextOf({ headers: { authorization: "Bearer any" } }))).rejects.toBe(failure);
  });

  it("lets a @Public() handler (the 405 of other methods) through without authenticating", async () => {
    const authenticate = jest.spyOn(passport, "authenticate");
    const { guard } = guardFor({});
    expect(await guard.canActivate(contextOf({ headers: {} }, "otherMethods"))).toBe(true);
    expect(authenticate).not.toHaveBeenCalled();
  });
});
