import { EVENTS } from "@community/domain";
import { ListQueryDto } from "../../team-lists/dto/list-query.dto";

/**
 * The query of the events list: paging, and the filters of contract 9.2 as EVENTS declares them
 * (`status` of scheduled, live, completed, canceled; the window `scheduled_from`, `scheduled_to`).
 */
export class EventsQueryDto extends ListQueryDto(EVENTS) {}
