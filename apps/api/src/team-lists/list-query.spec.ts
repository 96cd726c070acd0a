import { type AnyTeamList, EVENTS_LIST, GUIDES_LIST } from "@community/db/lists";
import { InvalidQueryException } from "../common/problems";
import { parseChangesQuery, parseDateTime, parseListQuery } from "./list-query";

function rejection(query: Record<string, unknown>, spec: AnyTeamList = EVENTS_LIST): InvalidQueryException {
  try {
    parseListQuery(spec, query);
  } catch (error) {
    if (error instanceof InvalidQueryException) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(query)} was accepted`);
}

describe(parseListQuery.name, () => {
  it("applies the defaults and hands on numbers", () => {
    expect(parseListQuery(EVENTS_LIST, {})).toEqual({ mode: "page", page: 1, perPage: 100, filters: {}, carried: "" });
    expect(parseListQuery(EVENTS_LIST, { page: "007", per_page: "25", sort: "x" })).toEqual({
      mode: "page",
      page: 7,
      perPage: 25,
      filters: {},
      carried: "",
    });
  });

  it.each([
    [{ per_page: "500" }, "per_page", "must be an integer between 1 and 100"],
    [{ per_page: "0" }, "per_page", "must be an integer between 1 and 100"],
    [{ page: "0" }, "page", "must be an integer between 1 and 2147483647"],
    [{ page: "" }, "page", "must be an integer between 1 and 2147483647"],
    [{ page: "1e2" }, "page", "must be an integer between 1 and 2147483647"],
    [{ page: "99999999999999999999" }, "page", "must be an integer between 1 and 2147483647"],
    [{ page: ["1", "2"] }, "page", "must be given at most once"],
    [{ cursor: ["", ""] }, "cursor", "must be given at most once"],
    [{ "page[]": "1" }, "page", "must be given as page=<value>, without brackets"],
    [{ "status[]": "live" }, "status", "must be given as status=<value>, without brackets"],
    [{ "per_page[a]": "1", "per_page[b]": "2" }, "per_page", "must be given as per_page=<value>, without brackets"],
    [{ page: "x", "page[]": "1" }, "page", "must be an integer between 1 and 2147483647"],
    [{ status: "" }, "status", "must be a comma-separated list of scheduled, live, completed, canceled"],
    [{ status: "live," }, "status", "must be a comma-separated list of scheduled, live, completed, canceled"],
    [{ scheduled_to: "2026-03-01T18:30:00" }, "scheduled_to", expect.stringContaining("RFC 3339")],
  ])("rejects %j naming %s", (query, parameter, message) => {
    expect(rejection(query).errors).toEqual([{ parameter, message }]);
  });

  it("names both cursor and page when they come together, and both bounds of an empty window", () => {
    expect(rejection({ cursor: "", page: "1" }).errors.map((e) => e.parameter)).toEqual(["cursor", "page"]);
    expect(
      rejection({ scheduled_from: "2026-03-02T00:00:00Z", scheduled_to: "2026-03-02T01:00:00+01:00" }).errors,
    ).toEqual([
      { parameter: "scheduled_from", message: "must be before scheduled_to" },
      { parameter: "scheduled_to", message: "must be after scheduled_from" },
    ]);
  });

  it("reads the cursor mode and canonical filters of each list", () => {
    expect(
      parseListQuery(EVENTS_LIST, {
        cursor: "",
        per_page: "10",
        status: "canceled,live,canceled",
        scheduled_from: "2026-03-01T20:30:00.250+02:00",
      }),
    ).toEqual({
      mode: "cursor",
      cursor: "",
      perPage: 10,
      filters: { status: ["live", "canceled"], from: "2026-03-01T18:30:00.25Z" },
      carried: "&status=live%2Ccanceled&scheduled_from=2026-03-01T18%3A30%3A00.25Z",
    });
    expect(parseListQuery(GUIDES_LIST, { status: "draft", scheduled_from: "ignored" }).filters).toEqual({
      status: ["draft"],
    });
    expect(rejection({ status: "live" }, GUIDES_LIST).errors.map((e) => e.parameter)).toEqual(["status"]);
  });
});

describe(parseDateTime.name, () => {
  it.each([
    ["2026-03-01T18:30:00Z", "2026-03-01T18:30:00Z"],
    ["2026-03-01t18:30:00z", "2026-03-01T18:30:00Z"],
    ["2026-03-01T18:30:00.123456789-05:30", "2026-03-02T00:00:00.123456Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"],
  ])("reads %s as %s", (raw, text) => {
    expect(parseDateTime(raw)?.text).toBe(text);
  });

  it.each([
    "2026-03-01T18:30:00",
    "2026-03-01 18:30:00Z",
    "2026-02-29T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-03-01T24:00:00Z",
    "2026-03-01T18:30:60Z",
    "2026-03-01T18:30:00+24:00",
    "2026-03-01T18:30Z",
    "2026-03-01",
  ])("rejects %s", (raw) => {
    expect(parseDateTime(raw)).toBeUndefined();
  });
});

describe(parseChangesQuery.name, () => {
  it("reads since and per_page, and names an empty since", () => {
    expect(parseChangesQuery({})).toEqual({ since: undefined, perPage: 100 });
    expect(parseChangesQuery({ since: "abc", per_page: "5" })).toEqual({ since: "abc", perPage: 5 });
    expect(() => parseChangesQuery({ since: "" })).toThrow(InvalidQueryException);
    expect(() => parseChangesQuery({ since: ["a", "b"] })).toThrow(InvalidQueryException);
  });
});
