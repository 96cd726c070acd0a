import { CHANGES_WAIT } from "@community/domain";
import { Transform } from "class-transformer";
import { IsInt, IsOptional, IsString, Max, Min, MinLength, Validate } from "class-validator";
import { PageSizeQueryDto } from "./page-size-query.dto";
import { decimalInteger, GivenOnce, integerMessage, PresentWith, singleValue } from "./query-constraints";

const SINCE_MESSAGE = "must be a token from meta.sync.next of an earlier response";

/** The query of a list's changes feed (contract 9.3): a sync token to read from, and a page size. */
// `wait` is checked as page-query.dto.ts checks `page`, in class-validator's own decorators, visible on each DTO.
export class ChangesQueryDto extends PageSizeQueryDto {
  /** A token from `meta.sync.next` of an earlier response; absent: the changes since now (none). */
  @IsOptional()
  @Transform(singleValue((raw) => raw))
  @MinLength(1, { message: SINCE_MESSAGE })
  @IsString({ message: SINCE_MESSAGE })
  @Validate(GivenOnce)
  since?: string;

  /** Seconds to hold the request while nothing has changed since `since` (contract 10.1); only with `since`. */
  @IsOptional()
  @Transform(singleValue(decimalInteger))
  @Validate(PresentWith, ["since"])
  @IsInt({ message: integerMessage(CHANGES_WAIT) })
  @Min(CHANGES_WAIT.min, { message: integerMessage(CHANGES_WAIT) })
  @Max(CHANGES_WAIT.max, { message: integerMessage(CHANGES_WAIT) })
  @Validate(GivenOnce)
  wait?: number;
}
