-- The latest change of each item of a team list (issue 44 item 5): the feed since a position P reads
-- the items whose latest change is after P with one range scan of (team_id, list, version, item_id),
-- instead of walking every commit of the log after P (200,000 commits back: every one of them, for
-- each of the three streams). Kept by team_list_commit at COMMIT, under the list's stats row lock,
-- so its versions follow commit order as team_list_commits' do; rows older than the oldest state
-- the log keeps are swept with it (sweepChangeLog). team_list_commit (prisma/repeatable/
-- team_list_commit.sql) keeps it; the runner applies that file in this migration's transaction.
CREATE TABLE "team_list_latest" (
    "team_id" VARCHAR(64) NOT NULL,
    "list" TEXT NOT NULL,
    "item_id" VARCHAR(64) COLLATE "C" NOT NULL,
    "version" BIGINT NOT NULL,
    -- false: the item left the team list (deleted, moved to another team, another id).
    "present" BOOLEAN NOT NULL,

    CONSTRAINT "team_list_latest_pkey" PRIMARY KEY ("team_id", "list", "item_id")
);
ALTER TABLE "team_list_latest" ADD CONSTRAINT "team_list_latest_team_id_list_fkey" FOREIGN KEY ("team_id", "list") REFERENCES "team_list_stats"("team_id", "list") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX "team_list_latest_version_idx" ON "team_list_latest"("team_id", "list", "version", "item_id");

-- The rows that exist now, from the log as the feed read it: an item's newest commit in the log,
-- its own or its account's; a tombstone's newest commit for items no longer in the team.
DO $$
DECLARE
  declared record;
BEGIN
  FOR declared IN SELECT d.list FROM team_lists d ORDER BY d.list LOOP
    EXECUTE format(
      'INSERT INTO team_list_latest (team_id, list, item_id, version, present)
       SELECT i.team_id, %L, i.id, GREATEST(c.version, ac.version), true
         FROM %I i JOIN accounts a ON a.id = i.account_id
         LEFT JOIN LATERAL (SELECT max(c.version) AS version FROM team_list_commits c
                             WHERE c.team_id = i.team_id AND c.list = %L AND c.xid = i.xid AND NOT c.superseded) c ON true
         LEFT JOIN LATERAL (SELECT max(c.version) AS version FROM team_list_commits c
                             WHERE c.team_id = i.team_id AND c.list = %L AND c.xid = a.xid AND NOT c.superseded) ac ON true
        WHERE COALESCE(c.version, ac.version) IS NOT NULL',
      declared.list, declared.list, declared.list, declared.list);
    EXECUTE format(
      'INSERT INTO team_list_latest (team_id, list, item_id, version, present)
       SELECT d.team_id, d.list, d.item_id, max(c.version), false
         FROM team_list_tombstones d
         JOIN team_list_commits c ON c.team_id = d.team_id AND c.list = d.list AND c.xid = d.xid AND NOT c.superseded
        WHERE d.list = %L AND NOT EXISTS (SELECT 1 FROM %I t WHERE t.id = d.item_id AND t.team_id = d.team_id)
        GROUP BY d.team_id, d.list, d.item_id
       ON CONFLICT (team_id, list, item_id) DO NOTHING',
      declared.list, declared.list);
  END LOOP;
END
$$;

-- Rows that live only until their transaction commits: after 20,000 one-row commits the table kept
-- 4.5 MB of dead rows under the default thresholds (20 % of a table that is empty between commits).
-- Vacuumed after every 1,000 dead rows instead; the log and the latest changes after 5 %.
ALTER TABLE "team_list_pending" SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
                                     autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 1000);
ALTER TABLE "team_list_commits" SET (autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE "team_list_latest" SET (autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.02);
