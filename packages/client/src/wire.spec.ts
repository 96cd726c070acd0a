import * as Domain from "@community/domain";
import type * as Wire from "./wire";
import { EVENT_STATUSES, GUIDE_STATUSES, LIST_NAMES, WEBHOOK_NOTICE_TYPES } from "./wire";

// The client declares its wire types itself (its published declarations must not need the
// workspace's domain package); they must stay the domain's types exactly.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShapes: [
  Same<Wire.Price, Domain.Price>,
  Same<Wire.Account, Domain.Account>,
  Same<Wire.Event, Domain.Event>,
  Same<Wire.Guide, Domain.Guide>,
  Same<Wire.Pagination, Domain.Pagination>,
  Same<Wire.ParameterError, Domain.ParameterError>,
  Same<Wire.Problem["errors"], Domain.Problem["errors"]>,
  Same<
    Pick<Wire.Problem, "type" | "title" | "status" | "detail" | "instance">,
    Pick<Domain.Problem, "type" | "title" | "status" | "detail" | "instance">
  >,
  Same<Wire.WebhookNotice, Domain.WebhookNotice>,
  Same<Wire.ListName, Domain.ListName>,
  Same<Wire.CalendarFeed, Domain.CalendarFeedResource>,
  Same<Wire.CalendarFeedWithUrl, Domain.CalendarFeedWithUrl>,
] = [true, true, true, true, true, true, true, true, true, true, true, true];

describe("the client's wire types", () => {
  it("name the statuses of contract 9.2", () => {
    expect(sameShapes.every(Boolean)).toBe(true);
    expect(EVENT_STATUSES).toEqual(Domain.EVENTS.status);
    expect(GUIDE_STATUSES).toEqual(Domain.GUIDES.status);
  });

  it("name the lists of the domain's definitions, and their notices", () => {
    expect(LIST_NAMES).toEqual(Domain.LIST_NAMES);
    expect(WEBHOOK_NOTICE_TYPES).toEqual([...Domain.LIST_CHANGED_NOTICES, "webhook.ping"]);
  });
});
