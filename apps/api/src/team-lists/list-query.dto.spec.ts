import { PAGINATION } from "@community/domain";
import { type ArgumentMetadata, ValidationPipe } from "@nestjs/common";
import { InvalidQueryException } from "../common/problems";
import { QueryValidationPipe, validationOptions } from "../common/validation.pipe";
import { decimalIntegerInRange, ListQueryDto, toPageRequest } from "./list-query.dto";

const metadata: ArgumentMetadata = { type: "query", metatype: ListQueryDto };

async function validate(query: Record<string, unknown>): Promise<ListQueryDto> {
  return (await new QueryValidationPipe().transform(query, metadata)) as ListQueryDto;
}

async function rejection(query: Record<string, unknown>): Promise<InvalidQueryException> {
  try {
    await validate(query);
  } catch (error) {
    if (error instanceof InvalidQueryException) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be rejected`);
}

describe("decimalIntegerInRange", () => {
  it.each([
    ["1", 1],
    ["100", 100],
    ["007", 7],
    ["0000000000000000000000001", 1],
  ])("reads %j as %i", (raw, value) => {
    expect(decimalIntegerInRange(raw, 1, 100)).toBe(value);
  });

  it.each(["", "0", "101", "-1", "+1", "1.0", "1e2", "0x10", " 1", "1 ", "１", "٣", "99999999999999999999999"])(
    "rejects %j",
    (raw) => {
      expect(decimalIntegerInRange(raw, 1, 100)).toBeUndefined();
    },
  );

  it("accepts the page maximum and rejects one more", () => {
    expect(decimalIntegerInRange("2147483647", 1, PAGINATION.page.max)).toBe(2147483647);
    expect(decimalIntegerInRange("2147483648", 1, PAGINATION.page.max)).toBeUndefined();
  });
});

describe("ListQueryDto validation", () => {
  it("applies the defaults when nothing is given", async () => {
    expect(toPageRequest(await validate({}))).toEqual({ page: 1, perPage: 100 });
  });

  it("converts valid values and ignores unknown parameters", async () => {
    const dto = await validate({ page: "3", per_page: "025", sort: "name" });
    expect(toPageRequest(dto)).toEqual({ page: 3, perPage: 25 });
    expect(dto).not.toHaveProperty("sort");
  });

  it.each([
    [{ per_page: "500" }, "per_page", "must be an integer between 1 and 100"],
    [{ per_page: "0" }, "per_page", "must be an integer between 1 and 100"],
    [{ page: "0" }, "page", "must be an integer between 1 and 2147483647"],
    [{ page: "" }, "page", "must be an integer between 1 and 2147483647"],
    [{ page: "1e2" }, "page", "must be an integer between 1 and 2147483647"],
    [{ page: ["1", "2"] }, "page", "must be given at most once"],
    [{ "page[]": "1" }, "page", "must be given as page=<value>, without brackets"],
    [{ "per_page[a]": "1", "per_page[b]": "2" }, "per_page", "must be given as per_page=<value>, without brackets"],
    [{ page: "x", "page[]": "1" }, "page", "must be an integer between 1 and 2147483647"],
  ])("rejects %j naming %s", async (query, parameter, message) => {
    const error = await rejection(query);
    expect(error.errors).toEqual([{ parameter, message }]);
    expect(error.detail).toBe(`${parameter} ${message}`);
  });

  it("lists every invalid parameter at once", async () => {
    const error = await rejection({ page: "-1", per_page: "abc" });
    expect(error.errors.map((e) => e.parameter).sort()).toEqual(["page", "per_page"]);
  });

  it("names a bracketed parameter beside an invalid one, and ignores unknown bracketed ones", async () => {
    const error = await rejection({ "page[]": "1", per_page: "0", "sort[]": "name" });
    expect(error.errors).toEqual([
      { parameter: "per_page", message: "must be an integer between 1 and 100" },
      { parameter: "page", message: "must be given as page=<value>, without brackets" },
    ]);
    expect(toPageRequest(await validate({ "sort[]": "name", "[page]": "2" }))).toEqual({ page: 1, perPage: 100 });
  });

  it("refuses to convert a query that skipped validation", () => {
    expect(() => toPageRequest({ page: "x" })).toThrow(TypeError);
  });
});

describe("ListQueryDto.fromCommonQuery (the validation pipe's fast path)", () => {
  const pipe = new QueryValidationPipe();
  /** class-validator alone, without the fast path: what the fast path must agree with. */
  const classValidator = new ValidationPipe(validationOptions((errors) => new InvalidQueryException(errors)));
  const classValidatorRejection = (query: unknown) =>
    classValidator.transform(query, metadata).then(
      () => undefined,
      (error: unknown) => error,
    );

  it.each([
    {},
    { page: "1" },
    { per_page: "100" },
    { page: "999999999", per_page: "1" },
    { page: "12", per_page: "50" },
  ])("takes %j as class-validator would", async (query) => {
    const fast = ListQueryDto.fromCommonQuery(query);
    expect(fast).toBeInstanceOf(ListQueryDto);
    expect(toPageRequest(fast as ListQueryDto)).toEqual(
      toPageRequest((await classValidator.transform(query, metadata)) as ListQueryDto),
    );
    expect(await pipe.transform(query, metadata)).toEqual(fast);
  });

  it.each([
    { page: "007" },
    { page: "0" },
    { page: "1000000000" },
    { per_page: "101" },
    { per_page: "05" },
    { page: ["1", "2"] },
    { page: "1", sort: "name" },
    { page: "" },
  ])("leaves %j to class-validator", (query) => {
    expect(ListQueryDto.fromCommonQuery(query)).toBeUndefined();
  });

  it("words every 400 as class-validator does", async () => {
    for (const query of [{ page: "0" }, { per_page: "500" }, { page: ["1", "2"] }, { page: "-1", per_page: "abc" }]) {
      const expected = await classValidatorRejection(query);
      expect(expected).toBeInstanceOf(InvalidQueryException);
      await expect(Promise.resolve().then(() => pipe.transform(query, metadata))).rejects.toEqual(expected);
    }
  });
});
