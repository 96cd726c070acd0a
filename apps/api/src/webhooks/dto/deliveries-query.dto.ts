import { PAGINATION } from "@community/domain";
import { DecimalInteger } from "../../team-lists/dto/query-rules";

/** The paging parameters of a webhook's delivery log: `page` and `per_page`, as a list's page mode. */
export class DeliveriesQueryDto {
  @DecimalInteger(PAGINATION.page)
  page: number = PAGINATION.page.default;

  @DecimalInteger(PAGINATION.perPage)
  per_page: number = PAGINATION.perPage.default;
}
