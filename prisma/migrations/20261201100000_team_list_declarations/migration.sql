-- One declaration of each team list in the database, which the list triggers read: the list's
-- name, its sort key and its status expression (over the columns of its table). They must say what
-- the list's declaration in packages/db/src/lists/*.list.ts says (TEAM_LISTS): the api refuses to
-- start when they disagree (checkListDeclarations, packages/db/src/lists/list-declarations.ts).
-- A list the table does not declare is an error in every trigger, never another list's facts.
CREATE TABLE "team_lists" (
    "list" TEXT NOT NULL,
    "sort_key" TEXT NOT NULL,
    "status_sql" TEXT NOT NULL,

    CONSTRAINT "team_lists_pkey" PRIMARY KEY ("list")
);

INSERT INTO "team_lists" ("list", "sort_key", "status_sql") VALUES
  ('events', 'scheduled_at',
   'CASE WHEN canceled_at IS NOT NULL THEN ''canceled'' WHEN completed_at IS NOT NULL THEN ''completed'' WHEN live_at IS NOT NULL THEN ''live'' ELSE ''scheduled'' END'),
  ('guides', 'COALESCE(published_at, ''infinity''::timestamptz)',
   'CASE WHEN COALESCE(published_at, ''infinity''::timestamptz) = ''infinity''::timestamptz THEN ''draft'' ELSE ''published'' END');

-- The lists' bookkeeping names only declared lists (it named events and guides in four CHECKs).
ALTER TABLE "team_list_stats" DROP CONSTRAINT "team_list_stats_list_check";
ALTER TABLE "team_list_changes" DROP CONSTRAINT "team_list_changes_list_check";
ALTER TABLE "team_list_tombstones" DROP CONSTRAINT "team_list_tombstones_list_check";
ALTER TABLE "team_list_feed_horizons" DROP CONSTRAINT "team_list_feed_horizons_list_check";
ALTER TABLE "team_list_stats" ADD CONSTRAINT "team_list_stats_list_fkey" FOREIGN KEY ("list") REFERENCES "team_lists"("list") ON DELETE RESTRICT ON UPDATE RESTRICT;
ALTER TABLE "team_list_changes" ADD CONSTRAINT "team_list_changes_list_fkey" FOREIGN KEY ("list") REFERENCES "team_lists"("list") ON DELETE RESTRICT ON UPDATE RESTRICT;
ALTER TABLE "team_list_tombstones" ADD CONSTRAINT "team_list_tombstones_list_fkey" FOREIGN KEY ("list") REFERENCES "team_lists"("list") ON DELETE RESTRICT ON UPDATE RESTRICT;
ALTER TABLE "team_list_feed_horizons" ADD CONSTRAINT "team_list_feed_horizons_list_fkey" FOREIGN KEY ("list") REFERENCES "team_lists"("list") ON DELETE RESTRICT ON UPDATE RESTRICT;

-- A list's status expression and sort key, from its declaration; an undeclared list is an error.
CREATE OR REPLACE FUNCTION "team_list_status_sql"("list" TEXT) RETURNS TEXT LANGUAGE plpgsql STABLE AS E'
DECLARE
  found_sql text\x3B
BEGIN
  SELECT d.status_sql INTO found_sql FROM team_lists d WHERE d.list = team_list_status_sql.list\x3B
  IF found_sql IS NULL THEN
    RAISE EXCEPTION ''team list % is not declared in team_lists'', team_list_status_sql.list\x3B
  END IF\x3B
  RETURN found_sql\x3B
END
';

CREATE FUNCTION "team_list_sort_key"("list" TEXT) RETURNS TEXT LANGUAGE plpgsql STABLE AS E'
DECLARE
  found_key text\x3B
BEGIN
  SELECT d.sort_key INTO found_key FROM team_lists d WHERE d.list = team_list_sort_key.list\x3B
  IF found_key IS NULL THEN
    RAISE EXCEPTION ''team list % is not declared in team_lists'', team_list_sort_key.list\x3B
  END IF\x3B
  RETURN found_key\x3B
END
';

-- As in 20261124400000, with the sort key read from the list's declaration rather than a CASE
-- whose ELSE gave any other list the guides' key.
CREATE OR REPLACE FUNCTION "team_list_track"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  this_list text := TG_ARGV[0]\x3B
  sort_key text := team_list_sort_key(TG_ARGV[0])\x3B
  status_key text := team_list_status_sql(TG_ARGV[0])\x3B
BEGIN
  IF TG_OP = ''TRUNCATE'' THEN
    INSERT INTO team_list_pending (kind, list) VALUES (''truncate'', this_list)\x3B
    INSERT INTO team_list_feed_horizons AS h (list, kind, xid) VALUES (this_list, ''reset'', pg_current_xact_id())
    ON CONFLICT (list, kind) DO UPDATE SET xid = EXCLUDED.xid, at = EXCLUDED.at\x3B
    DELETE FROM team_list_tombstones WHERE list = this_list\x3B
  ELSIF TG_OP = ''INSERT'' THEN
    EXECUTE format(
      ''WITH g AS (
         SELECT team_id, account_id, count(*) AS n, min(k) AS lo, max(k) AS hi
           FROM (SELECT team_id, account_id, %1$s AS k FROM new_rows) r GROUP BY team_id, account_id
       ), items AS (
         INSERT INTO team_list_pending (kind, team_id, list, delta, low_key, high_key)
         SELECT ''''items'''', team_id, $1, sum(n), min(lo), max(hi) FROM g GROUP BY team_id
       ), statuses AS (
         INSERT INTO team_list_pending (kind, team_id, list, status, delta)
         SELECT ''''status'''', team_id, $1, s, count(*) FROM (SELECT team_id, %2$s AS s FROM new_rows) r GROUP BY team_id, s
       )
       INSERT INTO team_list_pending (kind, account_ids)
       SELECT ''''lock'''', array_agg(DISTINCT account_id) FROM g HAVING count(*) > 0'', sort_key, status_key) USING this_list\x3B
  ELSIF TG_OP = ''DELETE'' THEN
    EXECUTE format(
      ''WITH items AS (
         INSERT INTO team_list_pending (kind, team_id, list, delta, low_key, high_key)
         SELECT ''''items'''', team_id, $1, -count(*), min(k), max(k)
           FROM (SELECT team_id, %1$s AS k FROM old_rows) r GROUP BY team_id
       ), statuses AS (
         INSERT INTO team_list_pending (kind, team_id, list, status, delta)
         SELECT ''''status'''', team_id, $1, s, -count(*) FROM (SELECT team_id, %2$s AS s FROM old_rows) r GROUP BY team_id, s
       )
       INSERT INTO team_list_tombstones (team_id, list, item_id) SELECT team_id, $1, id FROM old_rows'', sort_key, status_key)
      USING this_list\x3B
  ELSE
    EXECUTE format(
      ''WITH o AS MATERIALIZED (SELECT id, team_id, %1$s AS k FROM old_rows),
            n AS MATERIALIZED (SELECT id, team_id, account_id, %1$s AS k FROM new_rows),
            moved AS (
              SELECT team_id, k, -1 AS d FROM o
               WHERE NOT EXISTS (SELECT 1 FROM n WHERE n.id = o.id AND n.team_id = o.team_id AND n.k = o.k)
              UNION ALL
              SELECT team_id, k, 1 FROM n
               WHERE NOT EXISTS (SELECT 1 FROM o WHERE o.id = n.id AND o.team_id = n.team_id AND o.k = n.k)
            ),
            items AS (
              INSERT INTO team_list_pending (kind, team_id, list, delta, low_key, high_key)
              SELECT ''''items'''', team_id, $1, sum(d), min(k) FILTER (WHERE d <> 0), max(k) FILTER (WHERE d <> 0)
                FROM (SELECT team_id, NULL::timestamptz AS k, 0 AS d FROM n
                      UNION ALL SELECT team_id, NULL, 0 FROM o
                      UNION ALL SELECT team_id, k, d FROM moved) c
               GROUP BY team_id
            ),
            statuses AS (
              INSERT INTO team_list_pending (kind, team_id, list, status, delta)
              SELECT ''''status'''', team_id, $1, s, sum(d)
                FROM (SELECT team_id, %2$s AS s, -1 AS d FROM old_rows
                      UNION ALL SELECT team_id, %2$s, 1 FROM new_rows) c
               GROUP BY team_id, s HAVING sum(d) <> 0
            ),
            locks AS (
              INSERT INTO team_list_pending (kind, account_ids)
              SELECT ''''lock'''', array_agg(DISTINCT account_id) FROM n HAVING count(*) > 0
            )
       INSERT INTO team_list_tombstones (team_id, list, item_id)
       SELECT team_id, $1, id FROM o
        WHERE NOT EXISTS (SELECT 1 FROM n WHERE n.id = o.id AND n.team_id = o.team_id)'', sort_key, status_key)
      USING this_list\x3B
  END IF\x3B
  RETURN NULL\x3B
END
';
