import { PAGINATION } from "@community/domain";
import { Transform } from "class-transformer";
import { IsInt, Max, Min, Validate } from "class-validator";
import { decimalInteger, GivenOnce, integerMessage, singleValue } from "../../team-lists/dto/query-constraints";

const { page: PAGE, perPage: PER_PAGE } = PAGINATION;

/** The paging parameters of a webhook's delivery log: `page` and `per_page`, as a list's page mode. */
// Not `extends PageSizeQueryDto`: class-validator would then name per_page before page (deliveries-query.dto.spec.ts).
export class DeliveriesQueryDto {
  @Transform(singleValue(decimalInteger))
  @IsInt({ message: integerMessage(PAGE) })
  @Min(PAGE.min, { message: integerMessage(PAGE) })
  @Max(PAGE.max, { message: integerMessage(PAGE) })
  @Validate(GivenOnce)
  page: number = PAGE.default;

  @Transform(singleValue(decimalInteger))
  @IsInt({ message: integerMessage(PER_PAGE) })
  @Min(PER_PAGE.min, { message: integerMessage(PER_PAGE) })
  @Max(PER_PAGE.max, { message: integerMessage(PER_PAGE) })
  @Validate(GivenOnce)
  per_page: number = PER_PAGE.default;
}
