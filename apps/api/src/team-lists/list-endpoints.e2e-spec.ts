import { contractFixture, EMPTY_TEAM, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem, parseLinks } from "../testing/contract-assertions";
import { type Backend, startE2eApp } from "../testing/e2e-app";
import { appForSuite } from "../testing/suite-app";

/**
 * What both list endpoints share (contract sections 1, 5, 6, 7), on both backends: the real
 * AppModule over HTTP, a real PostgreSQL database of its own, and the embedded PGlite one.
 */
const fixture = contractFixture();
const runnerTotals = {
  events: fixture.events.filter((e) => e.team_id === RUNNERS).length,
  guides: fixture.guides.filter((g) => g.team_id === RUNNERS).length,
};
const emptyTeamToken = "tok-empty-team";
fixture.access_tokens.push({
  token: emptyTeamToken,
  user_id: fixture.users.find((u) => u.team_id === EMPTY_TEAM)?.id ?? "",
  client_id: "contract-client",
  expires_at: null,
  revoked: false,
});

const backends: Backend[] = ["postgres", "embedded"];

/** A row of the invalid-query table: the query string and the parameters its 400 names. */
const naming =
  (parameters: string[]) =>
  (query: string): [string, string[]] => [query, parameters];

describe.each(backends)("list endpoints on %s", (backend) => {
  const e2e = appForSuite(() => startE2eApp(backend, fixture), 120_000);

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  describe.each([
    ["events", "/v1/me/community/team/events"],
    ["guides", "/v1/me/community/team/guides"],
  ] as const)("%s", (kind, path) => {
    const total = runnerTotals[kind];

    it("answers 200 with exactly { guides, meta: { pagination } } and the default page size", async () => {
      const response = await request(e2e.server).get(path).set(bearer(TOKENS.runner));
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(["guides", "meta"]);
      expect(Object.keys(response.body.meta)).toEqual(["pagination"]);
      expect(response.body.meta.pagination).toEqual({ current_page: 1, per_page: 100, total_pages: 1 });
      expect(response.body.guides).toHaveLength(total);
    });

    it("sends the contract's headers on a 200", async () => {
      const response = await request(e2e.server).get(`${path}?per_page=5&page=2`).set(bearer(TOKENS.runner));
      expect(response.status).toBe(200);
      expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(response.headers["cache-control"]).toBe("private, no-cache");
      expect(response.headers.vary).toBe("Authorization, Accept-Encoding");
      expect(response.headers["x-total-count"]).toBe(String(total));
      expect(response.headers.etag).toMatch(/^"[^"]+"$/);
      const last = Math.ceil(total / 5);
      expect(parseLinks(response.headers.link)).toEqual({
        first: `${path}?page=1&per_page=5`,
        prev: `${path}?page=1&per_page=5`,
        next: `${path}?page=3&per_page=5`,
        last: `${path}?page=${last}&per_page=5`,
      });
      expect(response.headers["x-powered-by"]).toBeUndefined();
    });

    it("walks every page following rel=next and sees every item exactly once", async () => {
      const seen: string[] = [];
      let next: string | undefined = `${path}?per_page=4`;
      let pages = 0;
      while (next !== undefined) {
        const response: request.Response = await request(e2e.server).get(next).set(bearer(TOKENS.runner));
        expect(response.status).toBe(200);
        seen.push(...response.body.guides.map((item: { id: string }) => item.id));
        next = parseLinks(response.headers.link).next;
        pages++;
      }
      expect(pages).toBe(Math.ceil(total / 4));
      expect(new Set(seen).size).toBe(total);
      const all = await request(e2e.server).get(path).set(bearer(TOKENS.runner));
      expect(seen).toEqual(all.body.guides.map((item: { id: string }) => item.id));
    });

    it("answers a page past the end with 200, no items and the real total_pages", async () => {
      const response = await request(e2e.server).get(`${path}?page=50&per_page=10`).set(bearer(TOKENS.runner));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        guides: [],
        meta: { pagination: { current_page: 50, per_page: 10, total_pages: Math.ceil(total / 10) } },
      });
      expect(parseLinks(response.headers.link).next).toBeUndefined();
    });

    it("answers the largest page number with an empty page", async () => {
      const response = await request(e2e.server).get(`${path}?page=2147483647`).set(bearer(TOKENS.runner));
      expect(response.status).toBe(200);
      expect(response.body.guides).toEqual([]);
      expect(response.body.meta.pagination.current_page).toBe(2147483647);
    });

    it("gives total_pages 0, X-Total-Count 0 and no last link for a team without items", async () => {
      const response = await request(e2e.server).get(path).set(bearer(emptyTeamToken));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        guides: [],
        meta: { pagination: { current_page: 1, per_page: 100, total_pages: 0 } },
      });
      expect(response.headers["x-total-count"]).toBe("0");
      expect(parseLinks(response.headers.link)).toEqual({ first: `${path}?page=1&per_page=100` });
    });

    it("answers 304 without a body when If-None-Match names the current ETag, 200 otherwise", async () => {
      const first = await request(e2e.server).get(path).set(bearer(TOKENS.runner));
      const etag = first.headers.etag as string;
      const cached = await request(e2e.server)
        .get(path)
        .set(bearer(TOKENS.runner))
        .set("If-None-Match", `"other", ${etag}`);
      expect(cached.status).toBe(304);
      expect(cached.text ?? "").toBe("");
      expect(cached.headers.etag).toBe(etag);
      const stale = await request(e2e.server).get(path).set(bearer(TOKENS.runner)).set("If-None-Match", '"stale"');
      expect(stale.status).toBe(200);
      const otherPage = await request(e2e.server)
        .get(`${path}?per_page=3`)
        .set(bearer(TOKENS.runner))
        .set("If-None-Match", etag);
      expect(otherPage.status).toBe(200);
      expect(otherPage.headers.etag).not.toBe(etag);
    });

    it("answers HEAD with the headers of GET and no body", async () => {
      // The same request headers (the client library sends Accept-Encoding with GET only).
      const get = await request(e2e.server).get(path).set(bearer(TOKENS.runner)).set("Accept-Encoding", "gzip, br");
      const head = await request(e2e.server).head(path).set(bearer(TOKENS.runner)).set("Accept-Encoding", "gzip, br");
      expect(head.status).toBe(200);
      expect(head.text ?? "").toBe("");
      for (const name of [
        "content-type",
        "content-encoding",
        "etag",
        "x-total-count",
        "link",
        "cache-control",
        "vary",
      ]) {
        expect(head.headers[name]).toBe(get.headers[name]);
      }
      // In identity, from the page the GET left in the cache: the length of the JSON GET sends.
      const plain = await request(e2e.server).get(path).set(bearer(TOKENS.runner)).set("Accept-Encoding", "identity");
      const plainHead = await request(e2e.server)
        .head(path)
        .set(bearer(TOKENS.runner))
        .set("Accept-Encoding", "identity");
      expect(plainHead.headers["content-encoding"]).toBeUndefined();
      expect(plainHead.headers["content-length"]).toBe(String(Buffer.byteLength(plain.text)));
    });

    it.each(["post", "put", "patch", "delete", "options"] as const)(
      "answers %s with 405 and Allow: GET, HEAD",
      async (method) => {
        const response = await request(e2e.server)[method](path).set(bearer(TOKENS.runner));
        expectProblem(response, 405, "method-not-allowed");
        expect(response.headers.allow).toBe("GET, HEAD");
      },
    );

    it.each(["text/html", "application/xml", "application/json;q=0, text/plain", "application/problem+json"])(
      "answers Accept: %s with 406",
      async (accept) => {
        const response = await request(e2e.server).get(path).set(bearer(TOKENS.runner)).set("Accept", accept);
        expectProblem(response, 406, "not-acceptable");
      },
    );

    it.each(["application/json", "*/*", "application/*", "text/html, application/json;q=0.5"])(
      "serves Accept: %s",
      async (accept) => {
        const response = await request(e2e.server).get(path).set(bearer(TOKENS.runner)).set("Accept", accept);
        expect(response.status).toBe(200);
      },
    );

    it.each([
      ...[
        "page=",
        "page=0",
        "page=-1",
        "page=%2B1",
        "page=1.0",
        "page=1e2",
        "page=0x10",
        "page=%201",
        "page=1%20",
        "page=%EF%BC%91",
        "page=2147483648",
        "page=99999999999999999999",
        "page=1&page=2",
        "page[]=1",
        "page[a]=1",
        "page%5B%5D=1",
        "page=1&page[]=2",
      ].map(naming(["page"])),
      ...[
        "per_page=",
        "per_page=0",
        "per_page=101",
        "per_page=500",
        "per_page=ten",
        "per_page=10&per_page=10",
        "per_page[]=",
      ].map(naming(["per_page"])),
      ...["page=0&per_page=0", "page[]=1&per_page[x]=5"].map(naming(["page", "per_page"])),
    ])("answers ?%s with 400 naming %j", async (query, parameters) => {
      const response = await request(e2e.server).get(`${path}?${query}`).set(bearer(TOKENS.runner));
      expectProblem(response, 400, "invalid-query");
      // As sent, but for brackets, which a URI reference holds only percent-encoded.
      expect(response.body.instance).toBe(`${path}?${query.replace(/\[/g, "%5B").replace(/\]/g, "%5D")}`);
      expect(response.body.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(parameters);
      for (const error of response.body.errors) expect(error.message).toMatch(/^must be /);
    });

    it("names the bounds in a 400's detail", async () => {
      const response = await request(e2e.server).get(`${path}?per_page=500`).set(bearer(TOKENS.runner));
      expect(response.body.detail).toBe("per_page must be an integer between 1 and 100");
      expect(response.body.errors).toEqual([
        { parameter: "per_page", message: "must be an integer between 1 and 100" },
      ]);
    });

    it("reads 007 as 7 and ignores unknown parameters", async () => {
      const response = await request(e2e.server)
        .get(`${path}?per_page=007&team_id=team_climbers&sort=name`)
        .set(bearer(TOKENS.runner));
      expect(response.status).toBe(200);
      expect(response.body.meta.pagination.per_page).toBe(7);
    });

    it("answers a user without a team with 404 no-community-team", async () => {
      const response = await request(e2e.server).get(path).set(bearer(TOKENS.noTeam));
      expectProblem(response, 404, "no-community-team");
    });

    it("checks the query before the team: a user without a team and a bad page gets the 400", async () => {
      const response = await request(e2e.server).get(`${path}?page=0`).set(bearer(TOKENS.noTeam));
      expectProblem(response, 400, "invalid-query");
    });
  });

  it("answers an unknown path with a 404 problem", async () => {
    const response = await request(e2e.server).get("/v1/me/community/team/members").set(bearer(TOKENS.runner));
    expectProblem(response, 404, "not-found");
  });
});
