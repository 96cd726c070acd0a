import { type AnyTeamList, EVENTS_LIST, GUIDES_LIST } from "@community/db/lists";
import type { ListDefinition } from "@community/domain";
import { getMetadataStorage } from "class-validator";
import { InvalidQueryException } from "../../common/problems";
import { QueryValidationPipe } from "../../common/validation.pipe";
import { EventsQueryDto } from "../../events/dto/events-query.dto";
import { GuidesQueryDto } from "../../guides/dto/guides-query.dto";
import { changesQueryOf, type ListQuery, listQueryOf } from "../list-query";
import { ChangesQueryDto } from "./changes-query.dto";
import type { ListQueryOf } from "./list-query.dto";
import { parseDateTime } from "./query-constraints";

const pipe = new QueryValidationPipe();
const DTO_OF: Record<string, new () => object> = { events: EventsQueryDto, guides: GuidesQueryDto };

/** The query as the global ValidationPipe hands it to a list's controller, then to the use case. */
async function listQuery(query: Record<string, unknown>, spec: AnyTeamList = EVENTS_LIST): Promise<ListQuery> {
  const dto = await pipe.transform(query, { type: "query", metatype: DTO_OF[spec.list] });
  return listQueryOf(spec.definition, dto as ListQueryOf<ListDefinition>);
}

async function rejection(
  query: Record<string, unknown>,
  spec: AnyTeamList = EVENTS_LIST,
): Promise<InvalidQueryException> {
  try {
    await listQuery(query, spec);
  } catch (error) {
    if (error instanceof InvalidQueryException) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(query)} was accepted`);
}

describe("the list query DTOs through the global ValidationPipe", () => {
  it("applies the defaults and hands on numbers", async () => {
    expect(await listQuery({})).toEqual({ mode: "page", page: 1, perPage: 100, filters: {}, carried: "" });
    expect(await listQuery({ page: "007", per_page: "25", sort: "x" })).toEqual({
      mode: "page",
      page: 7,
      perPage: 25,
      filters: {},
      carried: "",
    });
  });

  it.each([
    ...["500", "0", "１０", "+5", " 5", "0x10"].map((value) => ["per_page", value, "between 1 and 100"]),
    ...["0", "", "1e2", "1.0", "2147483648", "9007199254740993", "99999999999999999999"].map((value) => [
      "page",
      value,
      "between 1 and 2147483647",
    ]),
  ])("rejects %s=%j: not an integer %s", async (parameter, value, bounds) => {
    expect((await rejection({ [parameter]: value })).errors).toEqual([
      { parameter, message: `must be an integer ${bounds}` },
    ]);
  });

  it.each([
    [{ page: ["1", "2"] }, "page", "must be given at most once"],
    [{ per_page: ["1", "1"] }, "per_page", "must be given at most once"],
    [{ cursor: ["", ""] }, "cursor", "must be given at most once"],
    [{ status: ["live", "live"] }, "status", "must be given at most once"],
    [{ "page[]": "1" }, "page", "must be given as page=<value>, without brackets"],
    [{ "status[]": "live" }, "status", "must be given as status=<value>, without brackets"],
    [{ "per_page[a]": "1", "per_page[b]": "2" }, "per_page", "must be given as per_page=<value>, without brackets"],
    [{ page: "x", "page[]": "1" }, "page", "must be an integer between 1 and 2147483647"],
    [{ status: "" }, "status", "must be a comma-separated list of scheduled, live, completed, canceled"],
    [{ status: "live," }, "status", "must be a comma-separated list of scheduled, live, completed, canceled"],
    [{ scheduled_to: "2026-03-01T18:30:00" }, "scheduled_to", expect.stringContaining("RFC 3339")],
  ])("rejects %j naming %s", async (query, parameter, message) => {
    expect((await rejection(query)).errors).toEqual([{ parameter, message }]);
  });

  it("names every bad parameter of one query", async () => {
    const { errors } = await rejection({ page: "0", per_page: "x", status: "nope", scheduled_from: "soon" });
    expect(errors.map((error) => error.parameter).sort()).toEqual(["page", "per_page", "scheduled_from", "status"]);
  });

  it("names both cursor and page when they come together, and both bounds of an empty window", async () => {
    expect((await rejection({ cursor: "", page: "1" })).errors.map((e) => e.parameter).sort()).toEqual([
      "cursor",
      "page",
    ]);
    expect(
      (await rejection({ scheduled_from: "2026-03-02T00:00:00Z", scheduled_to: "2026-03-02T01:00:00+01:00" })).errors,
    ).toEqual([
      { parameter: "scheduled_from", message: "must be before scheduled_to" },
      { parameter: "scheduled_to", message: "must be after scheduled_from" },
    ]);
  });

  it("reads the cursor mode and canonical filters of each list", async () => {
    expect(
      await listQuery({
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
    expect((await listQuery({ status: "draft", scheduled_from: "ignored" }, GUIDES_LIST)).filters).toEqual({
      status: ["draft"],
    });
    expect((await rejection({ status: "live" }, GUIDES_LIST)).errors.map((e) => e.parameter)).toEqual(["status"]);
  });

  it.each([EVENTS_LIST, GUIDES_LIST])("declares, for $list, the filters its list declaration names", (spec) => {
    const declared = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(DTO_OF[spec.list] as new () => object, "", true, false)
        .map((metadata) => metadata.propertyName),
    );
    expect(declared).toEqual(
      new Set(["per_page", "cursor", "page", "status", spec.definition.window.from, spec.definition.window.to]),
    );
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

describe(ChangesQueryDto.name, () => {
  const changes = async (query: Record<string, unknown>) =>
    changesQueryOf((await pipe.transform(query, { type: "query", metatype: ChangesQueryDto })) as ChangesQueryDto);

  it("reads since and per_page, and names an empty or repeated since", async () => {
    expect(await changes({})).toEqual({ since: undefined, perPage: 100, wait: 0 });
    expect(await changes({ since: "abc", per_page: "5" })).toEqual({ since: "abc", perPage: 5, wait: 0 });
    await expect(changes({ since: "" })).rejects.toThrow(InvalidQueryException);
    await expect(changes({ since: ["a", "b"] })).rejects.toThrow(InvalidQueryException);
  });

  it("reads wait as whole seconds from 0 to 60, with since", async () => {
    expect(await changes({ since: "abc", wait: "0" })).toEqual({ since: "abc", perPage: 100, wait: 0 });
    expect(await changes({ since: "abc", wait: "060" })).toEqual({ since: "abc", perPage: 100, wait: 60 });
  });

  it.each([
    [{ wait: "5" }, "can only be given together with since"],
    [{ wait: "0" }, "can only be given together with since"],
    [{ since: "abc", wait: "61" }, "must be an integer between 0 and 60"],
    [{ since: "abc", wait: "-1" }, "must be an integer between 0 and 60"],
    [{ since: "abc", wait: "1.5" }, "must be an integer between 0 and 60"],
    [{ since: "abc", wait: "" }, "must be an integer between 0 and 60"],
    [{ since: "abc", wait: ["5", "5"] }, "must be given at most once"],
  ])("names wait in %j", async (query, message) => {
    const error = await changes(query).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(InvalidQueryException);
    expect((error as InvalidQueryException).errors).toEqual([{ parameter: "wait", message }]);
  });
});
