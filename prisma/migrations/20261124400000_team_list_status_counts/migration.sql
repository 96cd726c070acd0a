-- Per team list and status, the number of items (team_list_status_counts), kept at COMMIT by the
-- change tracking of 20261124120000_team_list_commit_tracking beside team_list_stats: the total
-- of a page filtered by status alone (contract 9.2: X-Total-Count, total_pages) is a sum of at
-- most four rows instead of a count(*) that grows with the matches (42 ms for 91,000 canceled
-- events of a 1M-event team). Statement triggers append the status deltas to team_list_pending
-- (kind 'status'), and the commit batch applies them under the stats row lock it already takes, so
-- no new lock order appears. A list truncated by the transaction is counted again, statuses too.
--
-- Under traffic: the first statement waits for the transactions writing events or guides to end
-- and holds their writers back (SHARE: reads go on) until this script commits, so the backfill
-- below and the new triggers see every write once: a write made by the old triggers and
-- committed after the backfill's snapshot would otherwise be missing from the counts for good.
-- Writes wait for the backfill: about a second per million items on the machines measured.
-- The runner sends this script as one query, one transaction (LOCK TABLE needs one).
--
-- The adapter that applies migrations splits scripts at every semicolon, so function bodies are
-- E'' strings that write each semicolon as \x3B.
LOCK TABLE "events", "guides" IN SHARE MODE;

ALTER TABLE "team_list_pending" ADD COLUMN "status" TEXT;
ALTER TABLE "team_list_pending" DROP CONSTRAINT "team_list_pending_kind_check";
ALTER TABLE "team_list_pending" ADD CONSTRAINT "team_list_pending_kind_check"
  CHECK ("kind" IN ('items', 'lock', 'accounts', 'truncate', 'status'));

CREATE TABLE "team_list_status_counts" (
    "team_id" VARCHAR(64) NOT NULL,
    "list" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "item_count" BIGINT NOT NULL,

    CONSTRAINT "team_list_status_counts_pkey" PRIMARY KEY ("team_id","list","status"),
    CONSTRAINT "team_list_status_counts_item_count_check" CHECK ("item_count" >= 0)
);

ALTER TABLE "team_list_status_counts" ADD CONSTRAINT "team_list_status_counts_team_id_list_fkey" FOREIGN KEY ("team_id", "list") REFERENCES "team_list_stats"("team_id", "list") ON DELETE CASCADE ON UPDATE CASCADE;

-- Then team_list_status_sql(list), an item's status word as SQL text; team_list_track appended one
-- pending row per statement, team and status whose count moved, and team_list_commit applied them
-- under the stats row lock. Their definitions: prisma/repeatable/ (docs/database.md, "Functions").

-- The counts of the items already there (the stats rows of their lists exist: the triggers made
-- them). The writers wait (the lock above) until this commits.
INSERT INTO "team_list_status_counts" ("team_id", "list", "status", "item_count")
SELECT c.team_id, c.list, c.status, c.n
  FROM (SELECT team_id, 'events' AS list,
               CASE WHEN canceled_at IS NOT NULL THEN 'canceled' WHEN completed_at IS NOT NULL THEN 'completed'
                    WHEN live_at IS NOT NULL THEN 'live' ELSE 'scheduled' END AS status, count(*) AS n
          FROM "events" GROUP BY 1, 3
        UNION ALL
        SELECT team_id, 'guides',
               CASE WHEN COALESCE(published_at, 'infinity'::timestamptz) = 'infinity'::timestamptz THEN 'draft' ELSE 'published' END,
               count(*)
          FROM "guides" GROUP BY 1, 3) c
 WHERE EXISTS (SELECT 1 FROM "team_list_stats" s WHERE s.team_id = c.team_id AND s.list = c.list);
