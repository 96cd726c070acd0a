import { PAGINATION } from "@community/domain";
import { Transform } from "class-transformer";
import { IsInt, Max, Min, Validate } from "class-validator";
import { decimalInteger, GivenOnce, integerMessage, singleValue } from "./query-constraints";

const { perPage: PER_PAGE } = PAGINATION;

/** `per_page`, which every list query takes (contract sections 5, 9.1 and 9.3). */
export class PageSizeQueryDto {
  @Transform(singleValue(decimalInteger))
  @IsInt({ message: integerMessage(PER_PAGE) })
  @Min(PER_PAGE.min, { message: integerMessage(PER_PAGE) })
  @Max(PER_PAGE.max, { message: integerMessage(PER_PAGE) })
  @Validate(GivenOnce)
  per_page: number = PER_PAGE.default;
}
