import { Passport, type Strategy } from "passport";

/**
 * passport as published, as the bearer guard relies on it: each attempt is a new object on the
 * strategy, its actions reach the request's callback, a failure moves on to the next strategy,
 * and the registered strategy is never written to.
 */
describe("passport.authenticate's attempts", () => {
  /** A strategy as passport calls it: `authenticate` with the attempt as `this`. */
  const strategy = (shape: object) => shape as unknown as Strategy;
  type Callback = (error: unknown, user?: unknown, challenge?: unknown, status?: unknown) => void;

  function run(passport: InstanceType<typeof Passport>, names: string | string[]) {
    return new Promise<{ error: unknown; user: unknown; challenge: unknown; status: unknown }>((resolve) => {
      const done: Callback = (error, user, challenge, status) => resolve({ error, user, challenge, status });
      passport.authenticate(names, { session: false }, done)({ headers: {} }, {}, (error: unknown) =>
        resolve({ error, user: undefined, challenge: undefined, status: undefined }),
      );
    });
  }

  it("hands success to the callback, with the strategy's own state read through the attempt", async () => {
    const passport = new Passport();
    const fixed = {
      name: "fixed",
      user: { id: "u1" },
      authenticate(this: { user: unknown; success(user: unknown): void }) {
        this.success(this.user);
      },
    };
    passport.use("fixed", strategy(fixed));
    expect(await run(passport, "fixed")).toEqual({
      error: null,
      user: { id: "u1" },
      challenge: undefined,
      status: undefined,
    });
    expect(Object.keys(fixed).sort()).toEqual(["authenticate", "name", "user"]);
  });

  it("moves on to the next strategy after a failure, and reports every challenge when all fail", async () => {
    const passport = new Passport();
    const failing = (challenge: string) => ({
      authenticate(this: { fail(challenge: string, status: number): void }) {
        this.fail(challenge, 401);
      },
    });
    passport.use("a", strategy(failing("a-challenge")));
    passport.use("b", strategy(failing("b-challenge")));
    passport.use(
      "ok",
      strategy({
        authenticate(this: { success(user: unknown): void }) {
          this.success("from ok");
        },
      }),
    );
    expect((await run(passport, ["a", "ok"])).user).toBe("from ok");
    expect(await run(passport, ["a", "b"])).toEqual({
      error: null,
      user: false,
      challenge: ["a-challenge", "b-challenge"],
      status: [401, 401],
    });
  });

  it("hands errors to the callback", async () => {
    const passport = new Passport();
    const failure = new Error("directory down");
    passport.use(
      "broken",
      strategy({
        authenticate(this: { error(error: Error): void }) {
          this.error(failure);
        },
      }),
    );
    expect((await run(passport, "broken")).error).toBe(failure);
  });

  it("makes a new attempt per request, never the registered strategy itself", async () => {
    const passport = new Passport();
    const attempts: object[] = [];
    const seen = {
      authenticate(this: { success(user: unknown): void }) {
        attempts.push(this);
        this.success("u");
      },
    };
    passport.use("seen", strategy(seen));
    await run(passport, "seen");
    await run(passport, "seen");
    expect(attempts[0]).not.toBe(attempts[1]);
    expect(attempts).not.toContain(seen);
    expect(Object.keys(seen)).toEqual(["authenticate"]);
  });
});
