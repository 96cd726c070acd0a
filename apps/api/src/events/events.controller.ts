import type { Event } from "@community/domain";
import { Controller } from "@nestjs/common";
import { BearerAuthGuard } from "../auth/bearer-auth.guard";
import { TeamListController } from "../team-lists/team-list.controller";
import { EventsService } from "./events.service";

/** Pages of the caller's team events; the array is named `guides` by spec. */
@Controller("v1/me/community/team/events")
export class EventsController extends TeamListController<Event>(BearerAuthGuard) {
  constructor(events: EventsService) {
    super(events);
  }
}
