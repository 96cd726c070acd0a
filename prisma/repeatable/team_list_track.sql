-- Repeatable: the runner applies this file after the versioned migrations whenever its checksum
-- changes (docs/database.md, "Functions"). Edit the function here; never restate it in a migration.
-- Bodies are E'' strings that write each semicolon as \x3B, as the migrations did.
--
-- Statement triggers of events and guides (TG_ARGV[0] names the list). They take no lock that
-- another writer waits for: pending rows per statement and team, tombstones per item removed.
-- An UPDATE does not pair old and new rows by id: a row whose (id, team, sort key) does not appear
-- unchanged on the other side is removed from its old place and added at its new one, so a
-- change of id, team or sort key is always logged. The sort-key expression is chosen from the
-- list name (constants only) and run with EXECUTE, which sees the transition tables.
--
-- The sort key and the status expression are read from the list's declaration (team_lists): an
-- undeclared list is an error. Each statement also appends one pending row per team and status
-- whose count moved (kind 'status').
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
