-- Filters of the lists (contract 9.2). The status of an event is derived from its data alone, the
-- expression below is EVENT_STATUS_SQL of packages/db/src/lists/events.list.ts, written the same
-- way so that the planner matches it: a filter on one status reads this index in list order and
-- stops after a page, like the unfiltered list does on events_team_list_idx. Windows are ranges of
-- the own indexes of the lists (scheduled_at, guides: their sort key), and so are the statuses of guides.
CREATE INDEX "events_team_status_idx" ON "events" (
    "team_id",
    (CASE WHEN "canceled_at" IS NOT NULL THEN 'canceled' WHEN "completed_at" IS NOT NULL THEN 'completed'
          WHEN "live_at" IS NOT NULL THEN 'live' ELSE 'scheduled' END),
    "scheduled_at" DESC,
    "id"
);

-- When the team of a user last changed: a sync token issued before it is expired (410 sync-expired),
-- since the copy it belongs to is of the team the user left.
ALTER TABLE "users" ADD COLUMN "team_since" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- Each semicolon of the body is written \x3B: the adapter that applies migrations splits at them.
CREATE FUNCTION "users_team_since"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  NEW.team_since := clock_timestamp()\x3B
  RETURN NEW\x3B
END
';

CREATE TRIGGER "users_team_since"
  BEFORE UPDATE OF "team_id" ON "users"
  FOR EACH ROW WHEN (OLD."team_id" IS DISTINCT FROM NEW."team_id")
  EXECUTE FUNCTION users_team_since();
