import { GUIDES } from "@community/domain";
import { ListQueryDto } from "../../team-lists/dto/list-query.dto";

/**
 * The query of the guides list: paging, and the filters of contract 9.2 as GUIDES declares them
 * (`status` of draft, published; the window `published_from`, `published_to`).
 */
export class GuidesQueryDto extends ListQueryDto(GUIDES) {}
