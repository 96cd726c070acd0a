import { statementText } from "@community/db/testing";
import { CLIMBERS, contractFixture, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type Backend, type E2eApp, startE2eApp } from "../testing/e2e-app";
import { SignedTokens, type SyncTokenClaims } from "./signed-tokens";

/**
 * Cursor pages, filtered pages (and their 304) and changes polls answered from memory, keyed by
 * the list version the token lookup reads, on both backends: a repeated request costs the token
 * lookup alone, and a write, a team change and a revocation each show on the very next request.
 */
const SECRET = "cached-walks-e2e-cursor-secret-0123456789";
const EVENTS = "/v1/me/community/team/events";
const FILTERED = `${EVENTS}?scheduled_from=2000-01-01T00:00:00Z&per_page=3`;

const fixture = contractFixture();
const members = ["mover", "revoked_later"] as const;
for (const name of members) {
  fixture.users.push({ id: `user_${name}`, name, team_id: RUNNERS });
  fixture.access_tokens.push({
    token: `tok-${name}`,
    user_id: `user_${name}`,
    client_id: "contract-client",
    expires_at: null,
    revoked: false,
  });
}

type Item = { id: string } & Record<string, unknown>;

const backends: Backend[] = ["postgres", "embedded"];

describe.each(backends)("cursor pages, filtered pages and changes polls from memory on %s", (backend) => {
  let e2e: E2eApp;
  const signer = new SignedTokens(Buffer.from(SECRET));

  beforeAll(async () => {
    e2e = await startE2eApp(backend, fixture, { env: { CURSOR_SECRET: SECRET } });
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  const get = (url: string, token: string = TOKENS.runner, ifNoneMatch?: string) => {
    const sent = request(e2e.server).get(url).set("Authorization", `Bearer ${token}`);
    return ifNoneMatch === undefined ? sent : sent.set("If-None-Match", ifNoneMatch);
  };
  const sql = (text: string, values: unknown[] = []) => e2e.database.pool.query(text, values);

  /** The statements the app runs while `action` does (the token lookup included). */
  async function statementsOf<T>(action: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    const statements: string[] = [];
    const spies = [...new Set([e2e.database.pool, e2e.database.replica?.pool ?? e2e.database.pool])].map((pool) => {
      const query = pool.query.bind(pool);
      return jest.spyOn(pool, "query").mockImplementation(((text: unknown, ...rest: unknown[]) => {
        statements.push(statementText(text));
        return (query as (...args: unknown[]) => unknown)(text, ...rest);
      }) as typeof pool.query);
    });
    try {
      return { result: await action(), statements };
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  }

  const cursorUrl = (cursor: string) => `${EVENTS}?per_page=3&cursor=${encodeURIComponent(cursor)}`;
  const ids = (body: { guides: Item[] }) => body.guides.map((item) => item.id);
  const changesUrl = (since: string) => `${EVENTS}/changes?since=${encodeURIComponent(since)}`;

  /** A token at the end of a round: taken, then polled once (so the poll's own token is used next). */
  async function polledToken(token: string = TOKENS.runner): Promise<string> {
    const first = await get(`${EVENTS}/changes`, token);
    expect(first.status).toBe(200);
    const polled = await get(changesUrl(first.body.meta.sync.next), token);
    expect(polled.status).toBe(200);
    return polled.body.meta.sync.next;
  }

  it("serves a repeated cursor page, filtered page and 304 with the token lookup alone, as the database did", async () => {
    const first = await get(cursorUrl(""));
    // Read twice: the cache admits a page past a walk's first on its second read within a while.
    const second = await get(cursorUrl(first.body.meta.pagination.next_cursor));
    await get(cursorUrl(first.body.meta.pagination.next_cursor));
    const filtered = await get(FILTERED);
    for (const [url, read] of [
      [cursorUrl(""), first],
      [cursorUrl(first.body.meta.pagination.next_cursor), second],
      [FILTERED, filtered],
    ] as const) {
      const { result, statements } = await statementsOf(() => get(url));
      expect(statements).toHaveLength(1);
      expect(statements[0]).toContain("access_tokens");
      expect(result.status).toBe(200);
      expect(result.body).toEqual(read.body);
      expect(result.headers.link).toEqual(read.headers.link);
      expect(result.headers.etag).toEqual(read.headers.etag);
      expect(result.headers["x-total-count"]).toEqual(read.headers["x-total-count"]);
    }
    const { result: revalidated, statements } = await statementsOf(() =>
      get(FILTERED, TOKENS.runner, filtered.headers.etag),
    );
    expect(statements).toHaveLength(1);
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe(filtered.headers.etag);
    expect(revalidated.headers["x-total-count"]).toBe(filtered.headers["x-total-count"]);
    expect(revalidated.headers.link).toBe(filtered.headers.link);
  });

  it("answers a poll with nothing new with the token lookup alone, and a new token for the same place", async () => {
    const since = await polledToken();
    const { result, statements } = await statementsOf(() => get(changesUrl(since)));
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain("access_tokens");
    expect(result.body).toMatchObject({ changes: [], meta: { sync: { has_more: false } } });
    const [before, after] = [signer.openSyncToken(since), signer.openSyncToken(result.body.meta.sync.next)];
    expect(after?.position).toEqual(before?.position);
    expect(after?.issuedAt).toBeGreaterThanOrEqual(before?.issuedAt ?? Number.POSITIVE_INFINITY);
  });

  it("reads the database for a token whose state has the current version with another stamp, and refuses it", async () => {
    const claims = signer.openSyncToken(await polledToken());
    if (claims === undefined) throw new Error("the token does not open");
    const { base } = claims.position as { base: string };
    const [version, stamp] = base.split(".") as [string, string];
    // What a token of a lost history looks like after a restore gave its version out again.
    const lost: SyncTokenClaims = { ...claims, position: { base: `${version}.${BigInt(stamp) + 1n}` } };
    const { result, statements } = await statementsOf(() => get(changesUrl(signer.syncToken(lost))));
    expect(result.status).toBe(410);
    expect(result.body.type).toMatch(/sync-expired$/);
    expect(statements.length).toBeGreaterThan(1);
    // A token of the earlier form (a snapshot position), signed with the same secret: 410, not 500.
    const earlier: SyncTokenClaims = { ...claims, position: { base: "1000:1002:1000" } };
    const old = await get(changesUrl(signer.syncToken(earlier)));
    expect(old.status).toBe(410);
    expect(old.body.type).toMatch(/sync-expired$/);
  });

  it("shows a write on the very next request of a hot cursor page, filtered page, 304 and changes poll", async () => {
    const first = await get(cursorUrl(""));
    const cursor = first.body.meta.pagination.next_cursor as string;
    const second = await get(cursorUrl(cursor));
    await get(cursorUrl(cursor));
    const filtered = await get(FILTERED);
    await get(FILTERED);
    const since = await polledToken();
    expect((await get(changesUrl(since))).body.changes).toEqual([]);
    const gone = ids(second.body)[0] as string;
    const alsoFiltered = ids(filtered.body)[0] as string;
    await sql("DELETE FROM events WHERE id = ANY($1)", [[gone, alsoFiltered]]);

    const after = await get(cursorUrl(cursor));
    expect(ids(after.body)).not.toContain(gone);
    expect(ids(after.body).slice(0, 2)).toEqual(ids(second.body).slice(1, 3));
    const filteredAfter = await get(FILTERED);
    expect(ids(filteredAfter.body)).not.toContain(alsoFiltered);
    expect(Number(filteredAfter.headers["x-total-count"])).toBe(
      Number(filtered.headers["x-total-count"]) - new Set([gone, alsoFiltered]).size,
    );
    expect((await get(FILTERED, TOKENS.runner, filtered.headers.etag)).status).toBe(200);
    const changes = await get(changesUrl(since));
    expect(changes.body.changes).toEqual(
      expect.arrayContaining([...new Set([gone, alsoFiltered])].map((id) => ({ op: "delete", id }))),
    );
  });

  it("shows a team change on the very next request: the new team's pages, a 410 for the old token, a 400 for the old cursor", async () => {
    const token = "tok-mover";
    const first = await get(cursorUrl(""), token);
    await get(cursorUrl(""), token);
    await get(FILTERED, token);
    await get(FILTERED, token);
    const since = await polledToken(token);
    expect((await get(changesUrl(since), token)).status).toBe(200);
    await sql("UPDATE users SET team_id = $1 WHERE id = 'user_mover'", [CLIMBERS]);

    const climbers = fixture.events.filter((e) => e.team_id === CLIMBERS).map((e) => e.id);
    expect(ids((await get(cursorUrl(""), token)).body)).toEqual(climbers);
    expect(ids((await get(FILTERED, token)).body)).toEqual(climbers);
    expectProblem(await get(changesUrl(since), token), 410, "sync-expired");
    expectProblem(await get(cursorUrl(first.body.meta.pagination.next_cursor), token), 400, "invalid-query");
  });

  it("refuses a revoked token on the very next request of a hot cursor page, filtered page and changes poll", async () => {
    const token = "tok-revoked_later";
    await get(cursorUrl(""), token);
    await get(FILTERED, token);
    const since = await polledToken(token);
    for (const url of [cursorUrl(""), FILTERED, changesUrl(since)]) expect((await get(url, token)).status).toBe(200);
    await sql("UPDATE access_tokens SET revoked_at = now() WHERE user_id = 'user_revoked_later'");
    for (const url of [cursorUrl(""), FILTERED, changesUrl(since)]) expect((await get(url, token)).status).toBe(401);
  });
});
