-- Repeatable: the runner applies this file after the versioned migrations whenever its checksum
-- changes (docs/database.md, "Functions"). Edit the function here; never restate it in a migration.
-- Bodies are E'' strings that write each semicolon as \x3B, as the migrations did.
--
-- Runs at COMMIT (deferred), once per pending row, the first firing of a transaction takes all of
-- its pending rows and the others find none. Order of work, the same in every transaction:
-- 1. take the account locks, in key order: transaction-scoped advisory locks on 64 buckets of
--    account ids (namespace 7274), shared for the accounts of the items written, exclusive for
--    accounts updated. An account update's commit and an item write's commit of the same account
--    therefore never overlap: either the update's expansion (step 2) runs after the item's commit
--    and sees the item, or the item's version is taken after the update committed. These locks
--    exist only between the start of a commit batch and the end of its transaction, so a commit
--    never waits for a transaction still running statements (row locks on accounts would: an
--    item writer's commit would wait for an open rename that waits for the item writer's rows).
-- 2. expand each updated account to the team lists that show its items (a fresh snapshot: items
--    committed meanwhile included),
-- 3. create or lock the stats rows by (team, list) (one INSERT ... ON CONFLICT DO UPDATE in key
--    order locks each row, new or old),
-- 4. only then take each version from the sequence: a version is newer than any committed before
--    the lock was granted, so versions of a list increase in commit order,
-- 5. apply the count deltas (a truncated list is counted again: TRUNCATE holds its table's lock
--    until commit, so the count is exact) and log each changed range with the new version, a list
--    that was empty, or truncated, logs the whole range. Each list keeps at most 32 entries: older
--    ones merge into one that covers them, with the newest of their versions (conservative).
-- Every lock a commit batch waits for is held only by another commit batch, taken in the same
-- order, so commit batches cannot deadlock. A batch never waits for a table lock either: a list
-- that another transaction is truncating (ACCESS EXCLUSIVE until it ends) is not read by an
-- account update's expansion, which then touches every team of that list instead, and a recount
-- reads only the lists this transaction truncated itself. Teams deleted in the meantime are skipped.
--
-- A renamed account moves every declared list whose items show it, read from team_lists. Each
-- moved list gets a new version and stamp under the stats row lock the batch holds, and one
-- team_list_commits row (20261130100000_team_list_positions); the status deltas are applied under
-- the same lock (20261124400000_team_list_status_counts).
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
  renamed_team text[]\x3B
  renamed_list text[]\x3B
  declared record\x3B
  list_teams text[]\x3B
  c_fresh bigint[]\x3B
  fresh_count bigint\x3B
  u_team text[]\x3B
  u_list text[]\x3B
  u_version bigint[]\x3B
  u_recount boolean[]\x3B
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

  -- Every declared list whose items show a renamed account moves (the table of a list is named as
  -- the list, and the items of every list carry account_id): lists in name order, each table locked in
  -- share mode without waiting; a list whose table a writer holds moves for all its teams.
  IF renamed_ids IS NOT NULL THEN
    FOR declared IN SELECT d.list FROM team_lists d ORDER BY d.list LOOP
      BEGIN
        EXECUTE format(''LOCK TABLE %I IN ACCESS SHARE MODE NOWAIT'', declared.list)\x3B
        EXECUTE format(''SELECT array_agg(DISTINCT t.team_id) FROM %I t WHERE t.account_id = ANY($1)'', declared.list)
           INTO list_teams USING renamed_ids\x3B
      EXCEPTION WHEN lock_not_available THEN
        SELECT array_agg(s.team_id) INTO list_teams FROM team_list_stats s WHERE s.list = declared.list\x3B
      END\x3B
      renamed_team := renamed_team || list_teams\x3B
      renamed_list := renamed_list || array_fill(declared.list, ARRAY[COALESCE(array_length(list_teams, 1), 0)])\x3B
    END LOOP\x3B
  END IF\x3B

  WITH touched AS (
    SELECT p.team_id, p.list, p.delta, p.low_key, p.high_key
      FROM unnest(p_team, p_list, p_delta, p_low, p_high) AS p(team_id, list, delta, low_key, high_key)
    UNION ALL
    SELECT r.team_id, r.list, 0::bigint, NULL::timestamptz, NULL::timestamptz
      FROM unnest(renamed_team, renamed_list) AS r(team_id, list)
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
  SELECT (SELECT array_agg(team_id) FROM logged), (SELECT array_agg(list) FROM logged),
         (SELECT array_agg(team_id ORDER BY team_id, list) FROM updated),
         (SELECT array_agg(list ORDER BY team_id, list) FROM updated),
         (SELECT array_agg(version ORDER BY team_id, list) FROM updated),
         (SELECT array_agg(recount ORDER BY team_id, list) FROM updated)
    INTO logged_team, logged_list, u_team, u_list, u_version, u_recount\x3B

  -- Each item this transaction wrote, removed or showed through a renamed account is now at the
  -- commit''s version in team_list_latest (its latest change): the feed since a position reads the
  -- items changed after it from there, whatever the history between. A TRUNCATE (a reset, which
  -- expires every earlier position) drops the list''s entries first.
  FOR i IN 1 .. COALESCE(array_length(u_team, 1), 0) LOOP
    -- A list moved only by a renamed account is one whose table this transaction may not hold: a
    -- TRUNCATE (or an ALTER) that holds it waits, at its commit, for the stats rows held here. Not
    -- waiting for it, the commit expires the positions before it instead (a reset): never a gap.
    BEGIN
      EXECUTE format(''LOCK TABLE %I IN ACCESS SHARE MODE NOWAIT'', u_list[i])\x3B
    EXCEPTION WHEN lock_not_available THEN
      UPDATE team_list_commits c SET reset = true
       WHERE c.team_id = u_team[i] AND c.list = u_list[i] AND c.version = u_version[i]\x3B
      CONTINUE\x3B
    END\x3B
    IF u_recount[i] THEN
      DELETE FROM team_list_latest l WHERE l.team_id = u_team[i] AND l.list = u_list[i]\x3B
    END IF\x3B
    EXECUTE format(
      ''INSERT INTO team_list_latest AS l (team_id, list, item_id, version, present)
        SELECT DISTINCT d.team_id, d.list, d.item_id, $3, false FROM team_list_tombstones d
         WHERE d.team_id = $1 AND d.list = $2 AND d.xid = pg_current_xact_id()
           AND NOT EXISTS (SELECT 1 FROM %I t WHERE t.id = d.item_id AND t.team_id = $1)
        ON CONFLICT (team_id, list, item_id) DO UPDATE SET version = EXCLUDED.version, present = false'',
      u_list[i]) USING u_team[i], u_list[i], u_version[i]\x3B
    EXECUTE format(
      ''INSERT INTO team_list_latest AS l (team_id, list, item_id, version, present)
        SELECT $1, $2, t.id, $3, true FROM %I t
         WHERE t.team_id = $1 AND (t.xid = pg_current_xact_id() OR t.account_id = ANY($4))
        ON CONFLICT (team_id, list, item_id) DO UPDATE SET version = EXCLUDED.version, present = true'',
      u_list[i]) USING u_team[i], u_list[i], u_version[i], renamed_ids\x3B
  END LOOP\x3B

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
