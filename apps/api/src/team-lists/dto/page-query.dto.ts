import { PAGINATION } from "@community/domain";
import { Transform } from "class-transformer";
import { IsInt, IsOptional, IsString, Max, Min, Validate } from "class-validator";
import { PageSizeQueryDto } from "./page-size-query.dto";
import { AbsentWith, decimalInteger, GivenOnce, integerMessage, singleValue } from "./query-constraints";

const { page: PAGE } = PAGINATION;

/**
 * The paging parameters every list takes (contract sections 5 and 9.1): a page of `per_page`
 * items, or a cursor walk. Validated once by the global ValidationPipe (class-transformer, then
 * class-validator) and handed on as numbers. `cursor` and `page` exclude each other.
 */
export class PageQueryDto extends PageSizeQueryDto {
  /** A cursor of an earlier page's `meta.pagination.next_cursor`; empty starts a walk. */
  @IsOptional()
  @Transform(singleValue((raw) => raw))
  @Validate(AbsentWith, ["page"])
  @IsString({ message: "must be a cursor from meta.pagination.next_cursor" })
  @Validate(GivenOnce)
  cursor?: string;

  /** Absent: the first page (left undefined here, so that the cursor's rule can tell it was not given). */
  @IsOptional()
  @Transform(singleValue(decimalInteger))
  @Validate(AbsentWith, ["cursor"])
  @IsInt({ message: integerMessage(PAGE) })
  @Min(PAGE.min, { message: integerMessage(PAGE) })
  @Max(PAGE.max, { message: integerMessage(PAGE) })
  @Validate(GivenOnce)
  page?: number;
}
