import { EVENTS_LIST } from "@community/db/lists";
import { PageQueryDto } from "../../team-lists/dto/page-query.dto";
import { type QueryInstant, StatusWords, WindowBound } from "../../team-lists/dto/query-rules";

/** The query of the events list: paging, and the filters of contract 9.2 (status, a window of scheduled_at). */
export class EventsQueryDto extends PageQueryDto {
  /** scheduled, live, completed, canceled (EVENTS_LIST's status words), in that order once valid. */
  @StatusWords(Object.keys(EVENTS_LIST.filters.status))
  status?: string[];

  @WindowBound("from", "scheduled_to")
  scheduled_from?: QueryInstant;

  @WindowBound("to", "scheduled_from")
  scheduled_to?: QueryInstant;
}
