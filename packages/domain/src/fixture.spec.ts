import { type FixtureFile, type FixtureIssue, formatJsonPath, validateFixture } from "./fixture";
import { contractExampleFixture } from "./testing";

/** Validates the contract example after `change` and returns the issues (none: empty list). */
function issuesAfter(change: (fixture: Record<string, Array<Record<string, unknown>>>) => void): FixtureIssue[] {
  const fixture = contractExampleFixture() as unknown as Record<string, Array<Record<string, unknown>>>;
  change(fixture);
  const result = validateFixture(fixture);
  return result.ok ? [] : result.issues;
}

const first = (fixture: Record<string, Array<Record<string, unknown>>>, collection: string) => {
  const item = fixture[collection]?.[0];
  if (item === undefined) throw new Error(`no ${collection}[0]`);
  return item;
};

describe(validateFixture.name, () => {
  it("accepts the contract's example and returns it", () => {
    expect(validateFixture(contractExampleFixture())).toEqual({ ok: true, fixture: contractExampleFixture() });
  });

  it("accepts empty collections and a user without a team", () => {
    const fixture: FixtureFile = {
      accounts: [],
      teams: [],
      users: [{ id: "u", name: "Noor", team_id: null }],
      access_tokens: [],
      events: [],
      guides: [],
    };
    expect(validateFixture(fixture).ok).toBe(true);
  });

  it("names values of the wrong type by path", () => {
    expect(
      issuesAfter((f) => {
        first(f, "accounts").partner = "yes";
        first(f, "events").duration_seconds = "3600";
        first(f, "events").live_at = 0;
        first(f, "guides").name = 5;
      }),
    ).toEqual([
      { path: "accounts[0].partner", message: "must be a boolean" },
      { path: "events[0].duration_seconds", message: "must be a number" },
      { path: "events[0].live_at", message: "must be a string" },
      { path: "guides[0].name", message: "must be a string" },
    ]);
  });

  it.each([
    ["ABC", "an unknown code"],
    ["usd", "a lower-case code"],
    ["US", "a short code"],
    ["", "an empty code"],
  ])("rejects the currency %j (%s)", (currency) => {
    expect(
      issuesAfter((f) => {
        (first(f, "events").price as Record<string, unknown>).currency = currency;
      }),
    ).toEqual([
      {
        path: "events[0].price.currency",
        message: "must be an upper-case ISO 4217 currency code such as USD, EUR or JPY",
      },
    ]);
  });

  it.each([
    "2026-03-01T18:30:00.000Z",
    "2026-03-01T18:30:00+01:00",
    "2026-03-01T18:30:00",
    "2026-03-01 18:30:00Z",
    "2026-03-01",
    "2026-02-30T18:30:00Z",
    "2026-03-01T24:00:00Z",
  ])("rejects the timestamp %j", (timestamp) => {
    expect(
      issuesAfter((f) => {
        first(f, "events").scheduled_at = timestamp;
        first(f, "access_tokens").expires_at = timestamp;
      }),
    ).toEqual([
      { path: "access_tokens[0].expires_at", message: "must be a UTC timestamp of the form YYYY-MM-DDTHH:MM:SSZ" },
      { path: "events[0].scheduled_at", message: "must be a UTC timestamp of the form YYYY-MM-DDTHH:MM:SSZ" },
    ]);
  });

  it("rejects negative, fractional and out-of-range amounts", () => {
    expect(
      issuesAfter((f) => {
        (first(f, "events").price as Record<string, unknown>).value_in_cents = -1;
        (first(f, "guides").price as Record<string, unknown>).value_in_cents = 19.99;
        first(f, "events").duration_seconds = 2 ** 31;
      }),
    ).toEqual([
      { path: "events[0].duration_seconds", message: "must be <= 2147483647" },
      { path: "events[0].price.value_in_cents", message: "must be >= 0" },
      { path: "guides[0].price.value_in_cents", message: "must be an integer" },
    ]);
  });

  it("says a missing key is required, also a nullable one and a whole collection", () => {
    expect(
      issuesAfter((f) => {
        delete first(f, "events").name;
        delete first(f, "users").team_id;
        delete f.guides;
      }),
    ).toEqual([
      { path: "users[0].team_id", message: "is required" },
      { path: "events[0].name", message: "is required" },
      { path: "guides", message: "is required" },
    ]);
  });

  it("rejects extra keys, naming them", () => {
    const issues = issuesAfter((f) => {
      first(f, "events").colour = "red";
      (f as Record<string, unknown>).extras = [];
    });
    expect(issues).toEqual([
      { path: "events[0]", message: expect.stringContaining('"colour"') },
      { path: "$", message: expect.stringContaining('"extras"') },
    ]);
  });

  it("limits ids to 1..64 characters", () => {
    expect(
      issuesAfter((f) => {
        first(f, "teams").id = "t".repeat(64);
      }),
    ).toEqual([]);
    expect(
      issuesAfter((f) => {
        first(f, "events").id = "e".repeat(65);
        first(f, "users").id = "";
      }),
    ).toEqual([
      { path: "users[0].id", message: "must be a non-empty string" },
      { path: "events[0].id", message: "must be at most 64 characters" },
    ]);
  });

  it.each([
    ["https://images.example.com/a.jpg", true],
    ["http://images.example.com/a.jpg", true],
    ["ftp://images.example.com/a.jpg", false],
    ["/images/a.jpg", false],
    ["images.example.com/a.jpg", false],
    ["https:images.example.com/a.jpg", false],
    [" https://images.example.com/a.jpg", false],
    ["https://images.example.com/a b.jpg", false],
    ["javascript:alert(1)", false],
    ["https://", false],
  ])("checks the URL %j (valid: %p)", (url, valid) => {
    const issues = issuesAfter((f) => {
      first(f, "accounts").profile_image_url = url;
      first(f, "events").cover_url = url;
    });
    const message = "must be an absolute http:// or https:// URL";
    expect(issues).toEqual(
      valid
        ? []
        : [
            { path: "accounts[0].profile_image_url", message },
            { path: "events[0].cover_url", message },
          ],
    );
  });

  it("finds duplicate ids, account slugs and tokens, pointing at the later entry", () => {
    expect(
      issuesAfter((f) => {
        f.accounts?.push({ ...first(f, "accounts") });
        f.teams?.push({ ...first(f, "teams") });
        f.access_tokens?.push({ ...first(f, "access_tokens"), user_id: "user_1" });
        f.events?.push({ ...first(f, "events"), slug: "other" });
      }),
    ).toEqual([
      { path: "accounts[1].id", message: "id is already used by accounts[0]" },
      { path: "accounts[1].slug", message: "slug is already used by accounts[0]" },
      { path: "teams[1].id", message: "id is already used by teams[0]" },
      { path: "access_tokens[1].token", message: "token is already used by access_tokens[0]" },
      { path: "events[1].id", message: "id is already used by events[0]" },
    ]);
  });

  it("allows the same event or guide slug in two teams but not twice in one", () => {
    expect(
      issuesAfter((f) => {
        f.teams?.push({ id: "team_2", name: "Climbers" });
        f.events?.push({ ...first(f, "events"), id: "ev_2", team_id: "team_2" });
        f.guides?.push({ ...first(f, "guides"), id: "gd_2", team_id: "team_2" });
      }),
    ).toEqual([]);
    expect(
      issuesAfter((f) => {
        f.events?.push({ ...first(f, "events"), id: "ev_2" });
        f.guides?.push({ ...first(f, "guides"), id: "gd_2" });
      }),
    ).toEqual([
      { path: "events[1].slug", message: "slug (within its team) is already used by events[0]" },
      { path: "guides[1].slug", message: "slug (within its team) is already used by guides[0]" },
    ]);
  });

  it("only accepts tokens that fit an Authorization: Bearer header", () => {
    const withToken = (token: string) =>
      issuesAfter((f) => {
        first(f, "access_tokens").token = token;
      });
    expect(withToken("abc-DEF._~+/123==")).toEqual([]);
    for (const token of ["has space", "", "é", "a=b"]) {
      const issues = withToken(token);
      expect(issues.map((issue) => issue.path)).toEqual(["access_tokens[0].token"]);
    }
  });

  it.each([[[]], [null], ["text"], [42]])("rejects a file that is not an object (%j) at path $", (input) => {
    const result = validateFixture(input);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues.map((issue) => issue.path)).toEqual(["$"]);
  });

  it("reports every issue of the file at once", () => {
    const issues = issuesAfter((f) => {
      for (let i = 0; i < 5; i++) f.events?.push({ ...first(f, "events"), id: `ev_${i + 2}`, slug: `s${i}`, name: "" });
    });
    expect(issues.map((issue) => issue.path)).toEqual([1, 2, 3, 4, 5].map((i) => `events[${i}].name`));
  });
});

describe("validateFixture: oauth_clients and passwords", () => {
  const client = {
    client_id: "web-app",
    name: "Web app",
    client_secret: null,
    redirect_uris: ["https://app.example.com/callback", "http://localhost:5173/cb"],
  };

  it("keeps both keys optional, so older fixture files stay valid", () => {
    const fixture = contractExampleFixture();
    expect(fixture.oauth_clients).toBeUndefined();
    expect(validateFixture(fixture).ok).toBe(true);
  });

  it("accepts public and confidential clients and users with or without a password", () => {
    const fixture: FixtureFile = {
      ...contractExampleFixture(),
      users: [
        { id: "user_1", name: "Sam", team_id: "team_1", password: "a long passphrase" },
        { id: "user_2", name: "Noor", team_id: null, password: null },
      ],
      oauth_clients: [client, { ...client, client_id: "backend", client_secret: "s3cret-s3cret-s3cret" }],
    };
    expect(validateFixture(fixture)).toEqual({ ok: true, fixture });
  });

  it("names bad clients and passwords by path", () => {
    const issues = issuesAfter((f) => {
      first(f, "users").password = "short";
      f.oauth_clients = [
        { ...client, redirect_uris: [] },
        { ...client, client_id: "b", redirect_uris: ["/relative", "https://x.example/cb#frag"] },
        { ...client, client_id: "c", client_secret: "too-short" },
        { ...client },
      ];
    });
    expect(issues).toEqual([
      { path: "users[0].password", message: "must be at least 8 characters" },
      { path: "oauth_clients[0].redirect_uris", message: "must name at least one redirect URI" },
      { path: "oauth_clients[1].redirect_uris[0]", message: "must be an absolute URI without a fragment" },
      { path: "oauth_clients[1].redirect_uris[1]", message: "must be an absolute URI without a fragment" },
      { path: "oauth_clients[2].client_secret", message: "must be at least 16 characters" },
    ]);
    const duplicate = issuesAfter((f) => {
      f.oauth_clients = [{ ...client }, { ...client }];
    });
    expect(duplicate).toEqual([
      { path: "oauth_clients[1].client_id", message: "client_id is already used by oauth_clients[0]" },
    ]);
  });
});

describe(formatJsonPath.name, () => {
  it.each([
    [[], "$"],
    [["events", 3, "price", "currency"], "events[3].price.currency"],
    [[0, "a"], "[0].a"],
    [["bad-key"], '["bad-key"]'],
    [["events", 0, "with space"], 'events[0]["with space"]'],
  ])("formats %j as %s", (path, expected) => {
    expect(formatJsonPath(path)).toBe(expected);
  });
});
