import { InvalidQueryException } from "../../common/problems";
import { QueryValidationPipe } from "../../common/validation.pipe";
import { DeliveriesQueryDto } from "./deliveries-query.dto";

const pipe = new QueryValidationPipe();
const validated = (query: Record<string, unknown>) =>
  pipe.transform(query, { type: "query", metatype: DeliveriesQueryDto });

describe(DeliveriesQueryDto.name, () => {
  it("defaults to the first page of 100 and hands on numbers", async () => {
    expect(await validated({})).toEqual({ page: 1, per_page: 100 });
    expect(await validated({ page: "02", per_page: "7" })).toEqual({ page: 2, per_page: 7 });
  });

  it("names page before per_page when both are invalid", async () => {
    const error = await validated({ per_page: "0", page: ["1", "2"] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidQueryException);
    expect((error as InvalidQueryException).errors.map((e) => e.parameter)).toEqual(["page", "per_page"]);
  });
});
