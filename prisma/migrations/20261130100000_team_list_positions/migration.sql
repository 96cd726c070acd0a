-- Positions that live in the data (docs/database.md, "Positions"): every version a commit batch
-- gives a team list now comes with a random stamp, and each (version, stamp) is recorded with the
-- transaction that made it in team_list_commits. Sync tokens, ETags, the page cache and the page
-- boundaries name a list's state by (version, stamp): a restore to an earlier point, a dump into
-- a new cluster or a lossy failover hands a version out again, but with another stamp, so a
-- position from the lost history is told apart (410, a miss, a 200) instead of naming other
-- content. The change feed reads the window of commits after a position (by version, per team
-- list, in commit order) and no longer compares snapshots or transaction ids across histories.
--
-- Under traffic: the first statement waits for the commit batches in flight and holds the next
-- ones back (reads go on) until this script commits, so the backfilled commit rows name the
-- stats rows as they are. The runner sends this script as one query, one transaction.
--
-- The adapter that applies migrations splits scripts at every semicolon, so function bodies are
-- E'' strings that write each semicolon as \x3B.
LOCK TABLE "team_list_stats" IN EXCLUSIVE MODE;

-- 1 .. 2^53 - 1 (0 names "no statistics yet"): what tells two histories' uses of a version apart.
CREATE FUNCTION "team_list_stamp"() RETURNS BIGINT LANGUAGE sql VOLATILE AS
  'SELECT 1 + floor(random() * 9007199254740990)::bigint';

ALTER TABLE "team_list_stats" ADD COLUMN "stamp" BIGINT NOT NULL DEFAULT team_list_stamp();

-- One row per commit batch and team list it moved: the version and stamp it gave, the version it
-- replaced, the writing transaction (whose xid8 the rows it wrote carry), and whether it was a
-- TRUNCATE (a reset: positions before it expire). The change feed maps rows to versions through
-- it; a sweep keeps, per team list, every row from the last one committed before the cut-off.
-- `superseded`: a later commit of this team list had the same xid (only a cluster restored from
-- another's dump, whose counter starts anew, hands an xid out twice): the rows with that xid
-- belong to the later one, so the feed reads them once.
CREATE TABLE "team_list_commits" (
    "team_id" VARCHAR(64) NOT NULL,
    "list" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    "stamp" BIGINT NOT NULL,
    "previous_version" BIGINT NOT NULL,
    "xid" xid8,
    "reset" BOOLEAN NOT NULL DEFAULT false,
    "superseded" BOOLEAN NOT NULL DEFAULT false,
    "committed_at" TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),

    CONSTRAINT "team_list_commits_pkey" PRIMARY KEY ("team_id", "list", "version")
);
ALTER TABLE "team_list_commits" ADD CONSTRAINT "team_list_commits_team_id_list_fkey" FOREIGN KEY ("team_id", "list") REFERENCES "team_list_stats"("team_id", "list") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX "team_list_commits_xid_idx" ON "team_list_commits"("team_id", "list", "xid");
CREATE INDEX "team_list_commits_committed_at_idx" ON "team_list_commits"("committed_at");
-- Whether a TRUNCATE lies in a window: one probe, not a walk of the window.
CREATE INDEX "team_list_commits_reset_idx" ON "team_list_commits"("team_id", "list", "version") WHERE "reset";

-- The current state of every list, so that positions taken from now on are known. Its writer is
-- unknown (no xid) and so is the version before it (-1): the history before it is not kept.
INSERT INTO "team_list_commits" ("team_id", "list", "version", "stamp", "previous_version", "xid")
SELECT "team_id", "list", "version", "stamp", -1, NULL FROM "team_list_stats";

-- For an operator after a restore or a failover that clients may have read lost writes from:
-- every position, ETag and cached page of before is refused or missed from then on (410, 200),
-- and the current states are known again, so that tokens taken afterwards work.
CREATE FUNCTION "team_list_forget_positions"() RETURNS void LANGUAGE sql AS E'
  LOCK TABLE team_list_stats IN EXCLUSIVE MODE\x3B
  DELETE FROM team_list_commits\x3B
  UPDATE team_list_stats SET stamp = team_list_stamp()\x3B
  INSERT INTO team_list_commits (team_id, list, version, stamp, previous_version)
  SELECT team_id, list, version, stamp, -1 FROM team_list_stats
';

-- As in 20261124400000_team_list_status_counts (read 20261124120000's comment for the order of
-- work and why it cannot deadlock), plus, under the stats row lock the batch already holds, a new
-- stamp with each new version and one team_list_commits row per list it moved.
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

  WITH before AS (
    SELECT s.team_id, s.list, s.version FROM team_list_stats s
      JOIN unnest(c_team, c_list) AS c(team_id, list) ON s.team_id = c.team_id AND s.list = c.list
  ), updated AS (
    UPDATE team_list_stats s
       SET item_count = CASE WHEN c.recount THEN c.fresh ELSE s.item_count + c.delta END,
           version = nextval(''team_list_version_seq''),
           stamp = team_list_stamp()
      FROM unnest(c_team, c_list, c_delta, c_low, c_high, c_recount, c_fresh)
           AS c(team_id, list, delta, low_key, high_key, recount, fresh)
     WHERE s.team_id = c.team_id AND s.list = c.list
    RETURNING s.team_id, s.list, s.version, s.stamp, s.item_count - c.delta = 0 AS was_empty, c.recount, c.low_key, c.high_key
  ), committed AS (
    INSERT INTO team_list_commits (team_id, list, version, stamp, previous_version, xid, reset)
    SELECT u.team_id, u.list, u.version, u.stamp, b.version, pg_current_xact_id(), u.recount OR u.version <= b.version
      FROM updated u JOIN before b ON b.team_id = u.team_id AND b.list = u.list
    -- Only a sequence set back by hand hands a version out twice in one history: the newer
    -- commit replaces the older and counts as a reset (positions before it expire).
    ON CONFLICT (team_id, list, version) DO UPDATE
      SET stamp = EXCLUDED.stamp, previous_version = EXCLUDED.previous_version, xid = EXCLUDED.xid,
          reset = true, committed_at = EXCLUDED.committed_at
  ), superseded AS (
    UPDATE team_list_commits o SET superseded = true
      FROM updated u
     WHERE o.team_id = u.team_id AND o.list = u.list AND o.xid = pg_current_xact_id() AND o.version < u.version
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
