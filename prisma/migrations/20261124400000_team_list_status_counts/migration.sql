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

-- An item's status word over the columns of its list's table, as SQL text. The same words and
-- meaning as the `status` filter of each list's declaration (packages/db/src/lists/*.list.ts):
-- events from their data alone, guides over their sort key (a draft's key is infinity).
CREATE FUNCTION "team_list_status_sql"("list" TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS E'
  SELECT CASE list
    WHEN ''events'' THEN $s$CASE WHEN canceled_at IS NOT NULL THEN ''canceled'' WHEN completed_at IS NOT NULL THEN ''completed'' WHEN live_at IS NOT NULL THEN ''live'' ELSE ''scheduled'' END$s$
    WHEN ''guides'' THEN $s$CASE WHEN COALESCE(published_at, ''infinity''::timestamptz) = ''infinity''::timestamptz THEN ''draft'' ELSE ''published'' END$s$
  END
';

-- As in 20261124120000, plus one pending row per statement, team and status whose count moved:
-- an UPDATE that changes a status (canceled_at set, a guide published) moves two of them.
CREATE OR REPLACE FUNCTION "team_list_track"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  this_list text := TG_ARGV[0]\x3B
  sort_key text := CASE TG_ARGV[0] WHEN ''events'' THEN ''scheduled_at'' ELSE ''COALESCE(published_at, ''''infinity''''::timestamptz)'' END\x3B
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

-- As in 20261124120000 (read its comment for the order of work and why it cannot deadlock), plus
-- the status counts: once the stats rows are locked (step 3), the status deltas of the lists
-- touched are added, and a list this transaction truncated has its statuses counted again with
-- its items. Every batch that writes a list's status rows holds that list's stats row lock first.
CREATE OR REPLACE FUNCTION "team_list_commit"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  n_taken bigint\x3B
  lock_ids text[]\x3B
  renamed_ids text[]\x3B
  truncated_lists text[]\x3B
  p_team text[]\x3B
  p_list text[]\x3B
  p_delta bigint[]\x3B
  p_low timestamptz[]\x3B
  p_high timestamptz[]\x3B
  s_team text[]\x3B
  s_list text[]\x3B
  s_status text[]\x3B
  s_delta bigint[]\x3B
  c_team text[]\x3B
  c_list text[]\x3B
  c_delta bigint[]\x3B
  c_low timestamptz[]\x3B
  c_high timestamptz[]\x3B
  c_recount boolean[]\x3B
  logged_team text[]\x3B
  logged_list text[]\x3B
  account_lock record\x3B
  renamed_events_teams text[]\x3B
  renamed_guides_teams text[]\x3B
  c_fresh bigint[]\x3B
  fresh_count bigint\x3B
  i int\x3B
BEGIN
  WITH taken AS (
    DELETE FROM team_list_pending WHERE txid = pg_current_xact_id() RETURNING *
  ), items AS (
    SELECT team_id, list, sum(delta)::bigint AS delta, min(low_key) AS low_key, max(high_key) AS high_key
      FROM taken WHERE kind = ''items'' GROUP BY team_id, list
  ), statuses AS (
    SELECT team_id, list, status, sum(delta)::bigint AS delta
      FROM taken WHERE kind = ''status'' GROUP BY team_id, list, status HAVING sum(delta) <> 0
  )
  SELECT (SELECT count(*) FROM taken),
         (SELECT array_agg(DISTINCT x) FROM taken, unnest(account_ids) x WHERE kind = ''lock''),
         (SELECT array_agg(DISTINCT x) FROM taken, unnest(account_ids) x WHERE kind = ''accounts''),
         (SELECT array_agg(DISTINCT list) FROM taken WHERE kind = ''truncate''),
         (SELECT array_agg(team_id ORDER BY team_id, list) FROM items),
         (SELECT array_agg(list ORDER BY team_id, list) FROM items),
         (SELECT array_agg(delta ORDER BY team_id, list) FROM items),
         (SELECT array_agg(low_key ORDER BY team_id, list) FROM items),
         (SELECT array_agg(high_key ORDER BY team_id, list) FROM items),
         (SELECT array_agg(team_id ORDER BY team_id, list, status) FROM statuses),
         (SELECT array_agg(list ORDER BY team_id, list, status) FROM statuses),
         (SELECT array_agg(status ORDER BY team_id, list, status) FROM statuses),
         (SELECT array_agg(delta ORDER BY team_id, list, status) FROM statuses)
    INTO n_taken, lock_ids, renamed_ids, truncated_lists, p_team, p_list, p_delta, p_low, p_high,
         s_team, s_list, s_status, s_delta\x3B
  IF n_taken = 0 THEN
    RETURN NULL\x3B
  END IF\x3B

  FOR account_lock IN
    SELECT k.key, bool_or(k.exclusive) AS exclusive
      FROM (SELECT hashtext(x) & 63 AS key, false AS exclusive FROM unnest(lock_ids) x
            UNION ALL
            SELECT hashtext(x) & 63, true FROM unnest(renamed_ids) x) k
     GROUP BY k.key ORDER BY k.key
  LOOP
    IF account_lock.exclusive THEN
      PERFORM pg_advisory_xact_lock(7274, account_lock.key)\x3B
    ELSE
      PERFORM pg_advisory_xact_lock_shared(7274, account_lock.key)\x3B
    END IF\x3B
  END LOOP\x3B

  IF renamed_ids IS NOT NULL THEN
    BEGIN
      LOCK TABLE events IN ACCESS SHARE MODE NOWAIT\x3B
      SELECT array_agg(DISTINCT e.team_id) INTO renamed_events_teams FROM events e WHERE e.account_id = ANY(renamed_ids)\x3B
    EXCEPTION WHEN lock_not_available THEN
      SELECT array_agg(s.team_id) INTO renamed_events_teams FROM team_list_stats s WHERE s.list = ''events''\x3B
    END\x3B
    BEGIN
      LOCK TABLE guides IN ACCESS SHARE MODE NOWAIT\x3B
      SELECT array_agg(DISTINCT g.team_id) INTO renamed_guides_teams FROM guides g WHERE g.account_id = ANY(renamed_ids)\x3B
    EXCEPTION WHEN lock_not_available THEN
      SELECT array_agg(s.team_id) INTO renamed_guides_teams FROM team_list_stats s WHERE s.list = ''guides''\x3B
    END\x3B
  END IF\x3B

  WITH touched AS (
    SELECT p.team_id, p.list, p.delta, p.low_key, p.high_key
      FROM unnest(p_team, p_list, p_delta, p_low, p_high) AS p(team_id, list, delta, low_key, high_key)
    UNION ALL
    SELECT r.team_id, ''events'', 0::bigint, NULL::timestamptz, NULL::timestamptz
      FROM unnest(renamed_events_teams) AS r(team_id)
    UNION ALL
    SELECT r.team_id, ''guides'', 0::bigint, NULL::timestamptz, NULL::timestamptz
      FROM unnest(renamed_guides_teams) AS r(team_id)
    UNION ALL
    SELECT s.team_id, s.list, 0::bigint, NULL::timestamptz, NULL::timestamptz
      FROM team_list_stats s WHERE s.list = ANY(truncated_lists)
  ), c AS (
    SELECT t.team_id, t.list, sum(t.delta)::bigint AS delta, min(t.low_key) AS low_key, max(t.high_key) AS high_key,
           COALESCE(t.list = ANY(truncated_lists), false) AS recount
      FROM touched t
     WHERE EXISTS (SELECT 1 FROM teams WHERE teams.id = t.team_id)
     GROUP BY t.team_id, t.list
  )
  SELECT array_agg(team_id ORDER BY team_id, list), array_agg(list ORDER BY team_id, list),
         array_agg(delta ORDER BY team_id, list), array_agg(low_key ORDER BY team_id, list),
         array_agg(high_key ORDER BY team_id, list), array_agg(recount ORDER BY team_id, list)
    INTO c_team, c_list, c_delta, c_low, c_high, c_recount
    FROM c\x3B
  IF c_team IS NULL THEN
    RETURN NULL\x3B
  END IF\x3B

  INSERT INTO team_list_stats AS s (team_id, list, item_count, version)
  SELECT c.team_id, c.list, 0, 0 FROM unnest(c_team, c_list) AS c(team_id, list) ORDER BY c.team_id, c.list
  ON CONFLICT (team_id, list) DO UPDATE SET version = s.version\x3B

  -- The status deltas of the lists locked above (a statement that moves a status also names its
  -- team and list among the items), but not of a list counted again below. Rows are made first
  -- and then updated: an INSERT ... ON CONFLICT would check a negative delta against the CHECK.
  INSERT INTO team_list_status_counts (team_id, list, status, item_count)
  SELECT d.team_id, d.list, d.status, 0
    FROM unnest(s_team, s_list, s_status) AS d(team_id, list, status)
    JOIN unnest(c_team, c_list, c_recount) AS c(team_id, list, recount)
      ON c.team_id = d.team_id AND c.list = d.list AND NOT c.recount
   ORDER BY d.team_id, d.list, d.status
  ON CONFLICT (team_id, list, status) DO NOTHING\x3B
  UPDATE team_list_status_counts k
     SET item_count = k.item_count + d.delta
    FROM unnest(s_team, s_list, s_status, s_delta) AS d(team_id, list, status, delta)
    JOIN unnest(c_team, c_list, c_recount) AS c(team_id, list, recount)
      ON c.team_id = d.team_id AND c.list = d.list AND NOT c.recount
   WHERE k.team_id = d.team_id AND k.list = d.list AND k.status = d.status\x3B

  c_fresh := array_fill(NULL::bigint, ARRAY[array_length(c_team, 1)])\x3B
  IF truncated_lists IS NOT NULL THEN
    FOR i IN 1 .. array_length(c_team, 1) LOOP
      IF c_recount[i] THEN
        EXECUTE format(''SELECT count(*) FROM %I WHERE team_id = $1'', c_list[i]) INTO fresh_count USING c_team[i]\x3B
        c_fresh[i] := fresh_count\x3B
        DELETE FROM team_list_status_counts k WHERE k.team_id = c_team[i] AND k.list = c_list[i]\x3B
        EXECUTE format(
          ''INSERT INTO team_list_status_counts (team_id, list, status, item_count)
           SELECT $1, $2, %s, count(*) FROM %I WHERE team_id = $1 GROUP BY 3'',
          team_list_status_sql(c_list[i]), c_list[i]) USING c_team[i], c_list[i]\x3B
      END IF\x3B
    END LOOP\x3B
  END IF\x3B

  WITH updated AS (
    UPDATE team_list_stats s
       SET item_count = CASE WHEN c.recount THEN c.fresh ELSE s.item_count + c.delta END,
           version = nextval(''team_list_version_seq'')
      FROM unnest(c_team, c_list, c_delta, c_low, c_high, c_recount, c_fresh)
           AS c(team_id, list, delta, low_key, high_key, recount, fresh)
     WHERE s.team_id = c.team_id AND s.list = c.list
    RETURNING s.team_id, s.list, s.version, s.item_count - c.delta = 0 AS was_empty, c.recount, c.low_key, c.high_key
  ), logged AS (
    INSERT INTO team_list_changes (team_id, list, version, low_key, high_key)
    SELECT team_id, list, version,
           CASE WHEN recount OR was_empty THEN ''-infinity''::timestamptz ELSE low_key END,
           CASE WHEN recount OR was_empty THEN ''infinity''::timestamptz ELSE high_key END
      FROM updated WHERE recount OR low_key IS NOT NULL
    RETURNING team_id, list
  )
  SELECT array_agg(team_id), array_agg(list) INTO logged_team, logged_list FROM logged\x3B

  FOR i IN 1 .. COALESCE(array_length(logged_team, 1), 0) LOOP
    IF (SELECT count(*) FROM team_list_changes l WHERE l.team_id = logged_team[i] AND l.list = logged_list[i]) > 32 THEN
      WITH merged AS (
        DELETE FROM team_list_changes l
         WHERE l.team_id = logged_team[i] AND l.list = logged_list[i]
           AND l.version < (SELECT k.version FROM team_list_changes k
                             WHERE k.team_id = logged_team[i] AND k.list = logged_list[i]
                             ORDER BY k.version DESC OFFSET 15 LIMIT 1)
        RETURNING l.version, l.low_key, l.high_key
      )
      INSERT INTO team_list_changes (team_id, list, version, low_key, high_key)
      SELECT logged_team[i], logged_list[i], max(m.version), min(m.low_key), max(m.high_key) FROM merged m HAVING count(*) > 0\x3B
    END IF\x3B
  END LOOP\x3B
  RETURN NULL\x3B
END
';

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
