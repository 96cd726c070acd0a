import { GUIDES_LIST } from "@community/db/lists";
import { PageQueryDto } from "../../team-lists/dto/page-query.dto";
import { type QueryInstant, StatusWords, WindowBound } from "../../team-lists/dto/query-rules";

/** The query of the guides list: paging, and the filters of contract 9.2 (status, a window of published_at). */
export class GuidesQueryDto extends PageQueryDto {
  /** draft, published (GUIDES_LIST's status words), in that order once valid. */
  @StatusWords(Object.keys(GUIDES_LIST.filters.status))
  status?: string[];

  @WindowBound("from", "published_to")
  published_from?: QueryInstant;

  @WindowBound("to", "published_from")
  published_to?: QueryInstant;
}
