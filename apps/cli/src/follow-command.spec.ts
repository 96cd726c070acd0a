import { wireEvent } from "@community/domain/testing";
import { FakeCommunityApi, until } from "@community/fixtures/testing";
import { EXIT } from "./exit-codes";
import { run } from "./run";

/**
 * `changes --follow` against the fake of contract section 9, behind a fetch that plays the long
 * poll of 10.1: a request with `wait` is held until the test releases it or its signal aborts.
 */
const TOKEN = "fake-token";

describe("the CLI's changes --follow", () => {
  let api: FakeCommunityApi;
  let held: Array<() => void>;
  let waits: string[];
  let injected: Error[];
  let stop: AbortController;
  let out: string[];
  let err: string[];

  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const failure = injected.shift();
    if (failure) throw failure;
    const wait = url.searchParams.get("wait");
    if (wait !== null) {
      waits.push(wait);
      const signal = init?.signal as AbortSignal;
      await new Promise<void>((resolve, reject) => {
        held.push(resolve);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
    return globalThis.fetch(input, init);
  }) as typeof globalThis.fetch;

  const start = (argv: string[]) =>
    run([...argv, "--token", TOKEN, "--base-url", api.url], {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: (s: string) => err.push(s) },
      env: {},
      fetch,
      interrupted: () => stop.signal,
    });
  const release = () => {
    for (const go of held.splice(0)) go();
  };
  const stdout = () => out.join("");

  beforeEach(async () => {
    api = await FakeCommunityApi.start(TOKEN);
    api.upsert("events", wireEvent({ id: "ev_1" }));
    api.upsert("events", wireEvent({ id: "ev_2" }));
    held = [];
    waits = [];
    injected = [];
    stop = new AbortController();
    out = [];
    err = [];
  });
  afterEach(async () => {
    stop.abort();
    await api.close();
  });

  it("prints each change as a JSON line as it commits, from now, and ends with 0 when interrupted", async () => {
    const running = start(["changes", "events", "--follow", "--format", "json"]);
    await until(() => held.length === 1, "the first long poll is held", 5_000, 5);
    expect(stdout()).toBe("");

    api.upsert("events", wireEvent({ id: "ev_1", name: "Renamed run" }));
    release();
    await until(() => stdout().split("\n").length === 2 && held.length === 1, "one line is printed", 5_000, 5);
    api.remove("events", "ev_2");
    api.upsert("events", wireEvent({ id: "ev_3" }));
    release();
    await until(() => stdout().split("\n").length === 4, "two more lines are printed", 5_000, 5);

    stop.abort();
    expect(await running).toBe(EXIT.ok);
    const lines = stdout().trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { op: "upsert", id: "ev_1", item: wireEvent({ id: "ev_1", name: "Renamed run" }) },
      { op: "delete", id: "ev_2" },
      { op: "upsert", id: "ev_3", item: wireEvent({ id: "ev_3" }) },
    ]);
    // Changes from now: the two events that were there before are not printed.
    expect(waits.every((w) => w === "30")).toBe(true);
    expect(err.join("")).toBe("next: t5\n");
  });

  it.each([
    ["table", /^OP\s+ID\s+NAME\s+SCHEDULED_AT/],
    ["csv", /^op,id,slug,name,/],
  ])("writes %s rows under one header, however many answers they come in", async (format, header) => {
    const since = "t2";
    const running = start(["changes", "events", "--follow", "--since", since, "--wait", "5", "--format", format]);
    await until(() => held.length === 1, "the first long poll is held", 5_000, 5);
    api.upsert("events", wireEvent({ id: "ev_5" }));
    release();
    await until(() => held.length === 1 && out.length === 1, "the first rows are printed", 5_000, 5);
    api.upsert("events", wireEvent({ id: "ev_6" }));
    release();
    await until(() => out.length === 2, "the second rows are printed", 5_000, 5);
    stop.abort();
    expect(await running).toBe(EXIT.ok);
    const lines = stdout().trimEnd().split("\n");
    expect(lines[0]).toMatch(header);
    expect(lines.filter((line) => header.test(line))).toHaveLength(1);
    expect(lines.slice(1).map((line) => line.split(/\s+|,/).slice(0, 2))).toEqual([
      ["upsert", "ev_5"],
      ["upsert", "ev_6"],
    ]);
    expect(waits).toEqual(["5", "5", "5"]);
    expect(err.join("")).toBe("next: t4\n");
  });

  it("tells a retry on stderr and goes on; stdout keeps the data only", async () => {
    injected.push(new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } }));
    const running = start(["changes", "events", "--follow", "--since", "t2", "--format", "json"]);
    await until(() => held.length === 1, "a long poll is held after the failure", 5_000, 5);
    api.upsert("events", wireEvent({ id: "ev_7" }));
    release();
    await until(() => out.length === 1, "the change is printed", 5_000, 5);
    stop.abort();
    expect(await running).toBe(EXIT.ok);
    expect(JSON.parse(stdout())).toMatchObject({ op: "upsert", id: "ev_7" });
    expect(err.join("")).toMatch(/^warning: cannot reach .*ECONNREFUSED.* \(trying again in 1 s\)\nnext: t3\n$/);
  });

  it("stops with the sync-expired code when the token has expired", async () => {
    api.expireTokens("events");
    const running = start(["changes", "events", "--follow", "--since", "t1"]);
    await until(() => held.length === 1, "the long poll is held", 5_000, 5);
    release();
    expect(await running).toBe(EXIT.syncExpired);
    expect(err.join("")).toMatch(/^error: 410 Gone/);
    expect(stdout()).toBe("");
  });

  it("passes --wait to one long poll with --since, and refuses it without --since or --follow", async () => {
    const once = start(["changes", "events", "--since", "t2", "--wait", "12", "--format", "json"]);
    await until(() => held.length === 1, "the long poll is held", 5_000, 5);
    api.upsert("events", wireEvent({ id: "ev_8" }));
    release();
    expect(await once).toBe(EXIT.ok);
    expect(waits).toEqual(["12"]);
    expect(JSON.parse(stdout())).toMatchObject({ changes: [{ op: "upsert", id: "ev_8" }], next: "t3" });

    err = [];
    expect(await start(["changes", "events", "--wait", "12"])).toBe(EXIT.usage);
    expect(err.join("")).toContain("--wait needs --since or --follow");
    expect(await start(["changes", "events", "--follow", "--wait", "61"])).toBe(EXIT.usage);
    expect(err.join("")).toContain("--wait must be an integer between 0 and 60");
    expect(api.requests.filter((r) => r.url.includes("wait=")).map((r) => r.url)).toHaveLength(1);
  });
});
