-- One change-tracking mechanism for list versions, counts, page-boundary ranges and the sync feed,
-- designed for concurrent writers (docs/database.md, "Change tracking").
--
-- Before: every statement updated team_list_stats at once, taking nextval() before it waited for
-- the row lock, one trigger (and so one lock order) per operation, and found an account's teams
-- through its own snapshot. Now statements only append to team_list_pending (no shared lock),
-- a deferred constraint trigger applies a transaction's pending rows at COMMIT in one sorted
-- batch: it takes locks on the accounts concerned, then on the stats rows, in key order, and takes
-- each version after its lock, so versions move forward in commit order and writers cannot
-- deadlock on these locks. Every item and account row carries the xid8 of the transaction that
-- last wrote it, and deletes leave tombstones: what the sync feed reads
-- (packages/db/src/lists/changes.ts).
--
-- The adapter that applies migrations splits scripts at every semicolon, so function bodies are
-- E'' strings that write each semicolon as \x3B.

DROP TRIGGER "events_stats_insert" ON "events";
DROP TRIGGER "events_stats_update" ON "events";
DROP TRIGGER "events_stats_delete" ON "events";
DROP TRIGGER "events_stats_truncate" ON "events";
DROP TRIGGER "guides_stats_insert" ON "guides";
DROP TRIGGER "guides_stats_update" ON "guides";
DROP TRIGGER "guides_stats_delete" ON "guides";
DROP TRIGGER "guides_stats_truncate" ON "guides";
DROP TRIGGER "events_stats_insert_ranges" ON "events";
DROP TRIGGER "events_stats_update_ranges" ON "events";
DROP TRIGGER "events_stats_delete_ranges" ON "events";
DROP TRIGGER "events_stats_truncate_ranges" ON "events";
DROP TRIGGER "guides_stats_insert_ranges" ON "guides";
DROP TRIGGER "guides_stats_update_ranges" ON "guides";
DROP TRIGGER "guides_stats_delete_ranges" ON "guides";
DROP TRIGGER "guides_stats_truncate_ranges" ON "guides";
DROP TRIGGER "accounts_stats_update" ON "accounts";
DROP FUNCTION "team_list_stats_track"();
DROP FUNCTION "team_list_changes_track"();
DROP FUNCTION "team_list_stats_account_changed"();

-- The transaction that last wrote each row: set by default on insert, stamped on update.
ALTER TABLE "events" ADD COLUMN "xid" xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE "guides" ADD COLUMN "xid" xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE "accounts" ADD COLUMN "xid" xid8 NOT NULL DEFAULT pg_current_xact_id();
-- (team, xid, id): the feed walks a team's changes in this order, a page at a time.
CREATE INDEX "events_team_xid_idx" ON "events"("team_id", "xid", "id");
CREATE INDEX "guides_team_xid_idx" ON "guides"("team_id", "xid", "id");
CREATE INDEX "accounts_xid_idx" ON "accounts"("xid");
-- An account's items of a team written before a given xid: the feed's account changes without a
-- walk over items the account's own insert came before (a bulk load). Its prefix serves what the
-- account_id index did (foreign-key checks, the teams of an updated account).
DROP INDEX "events_account_id_idx";
DROP INDEX "guides_account_id_idx";
CREATE INDEX "events_account_team_xid_idx" ON "events"("account_id", "team_id", "xid");
CREATE INDEX "guides_account_team_xid_idx" ON "guides"("account_id", "team_id", "xid");

CREATE FUNCTION "stamp_writer_xid"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  NEW.xid := pg_current_xact_id()\x3B
  RETURN NEW\x3B
END
';
CREATE TRIGGER "events_stamp_xid" BEFORE UPDATE ON "events" FOR EACH ROW EXECUTE FUNCTION stamp_writer_xid();
CREATE TRIGGER "guides_stamp_xid" BEFORE UPDATE ON "guides" FOR EACH ROW EXECUTE FUNCTION stamp_writer_xid();
CREATE TRIGGER "accounts_stamp_xid" BEFORE UPDATE ON "accounts" FOR EACH ROW EXECUTE FUNCTION stamp_writer_xid();

-- What each statement changed, kept until its transaction commits (rows never outlive it).
-- kind 'items': a team list's count delta and the sort-key range of the items that moved (null
-- when none moved), 'lock': the accounts of the items written, locked at commit, 'accounts':
-- accounts updated, whose teams are found at commit, 'truncate': a list emptied.
CREATE TABLE "team_list_pending" (
    "txid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
    "kind" TEXT NOT NULL,
    "team_id" VARCHAR(64),
    "list" TEXT,
    "delta" BIGINT NOT NULL DEFAULT 0,
    "low_key" TIMESTAMPTZ,
    "high_key" TIMESTAMPTZ,
    "account_ids" TEXT[],

    CONSTRAINT "team_list_pending_kind_check" CHECK ("kind" IN ('items', 'lock', 'accounts', 'truncate'))
);
CREATE INDEX "team_list_pending_txid_idx" ON "team_list_pending"("txid");

-- Items deleted from a team list or moved out of it (another team, another id): the feed's deletes.
CREATE TABLE "team_list_tombstones" (
    "team_id" VARCHAR(64) NOT NULL,
    "list" TEXT NOT NULL,
    "item_id" VARCHAR(64) COLLATE "C" NOT NULL,
    "xid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
    "deleted_at" TIMESTAMPTZ NOT NULL DEFAULT now(),

    CONSTRAINT "team_list_tombstones_list_check" CHECK ("list" IN ('events', 'guides'))
);
CREATE INDEX "team_list_tombstones_team_list_xid_idx" ON "team_list_tombstones"("team_id", "list", "xid", "item_id");
CREATE INDEX "team_list_tombstones_item_idx" ON "team_list_tombstones"("item_id", "xid");
CREATE INDEX "team_list_tombstones_deleted_at_idx" ON "team_list_tombstones"("deleted_at");

-- Per list, the newest transaction that made older feed positions unusable: a TRUNCATE ('reset')
-- or a sweep of tombstones ('sweep', the greatest xid it removed).
CREATE TABLE "team_list_feed_horizons" (
    "list" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "xid" xid8 NOT NULL,
    "at" TIMESTAMPTZ NOT NULL DEFAULT now(),

    CONSTRAINT "team_list_feed_horizons_pkey" PRIMARY KEY ("list", "kind"),
    CONSTRAINT "team_list_feed_horizons_list_check" CHECK ("list" IN ('events', 'guides')),
    CONSTRAINT "team_list_feed_horizons_kind_check" CHECK ("kind" IN ('reset', 'sweep'))
);

-- Statement triggers of events and guides (TG_ARGV[0] names the list). They take no lock that
-- another writer waits for: pending rows per statement and team, tombstones per item removed.
-- An UPDATE does not pair old and new rows by id: a row whose (id, team, sort key) does not appear
-- unchanged on the other side is removed from its old place and added at its new one, so a
-- change of id, team or sort key is always logged. The sort-key expression is chosen from the
-- list name (constants only) and run with EXECUTE, which sees the transition tables.
CREATE FUNCTION "team_list_track"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  this_list text := TG_ARGV[0]\x3B
  sort_key text := CASE TG_ARGV[0] WHEN ''events'' THEN ''scheduled_at'' ELSE ''COALESCE(published_at, ''''infinity''''::timestamptz)'' END\x3B
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
           FROM (SELECT team_id, account_id, %s AS k FROM new_rows) r GROUP BY team_id, account_id
       ), items AS (
         INSERT INTO team_list_pending (kind, team_id, list, delta, low_key, high_key)
         SELECT ''''items'''', team_id, $1, sum(n), min(lo), max(hi) FROM g GROUP BY team_id
       )
       INSERT INTO team_list_pending (kind, account_ids)
       SELECT ''''lock'''', array_agg(DISTINCT account_id) FROM g HAVING count(*) > 0'', sort_key) USING this_list\x3B
  ELSIF TG_OP = ''DELETE'' THEN
    EXECUTE format(
      ''WITH items AS (
         INSERT INTO team_list_pending (kind, team_id, list, delta, low_key, high_key)
         SELECT ''''items'''', team_id, $1, -count(*), min(k), max(k)
           FROM (SELECT team_id, %s AS k FROM old_rows) r GROUP BY team_id
       )
       INSERT INTO team_list_tombstones (team_id, list, item_id) SELECT team_id, $1, id FROM old_rows'', sort_key)
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
            locks AS (
              INSERT INTO team_list_pending (kind, account_ids)
              SELECT ''''lock'''', array_agg(DISTINCT account_id) FROM n HAVING count(*) > 0
            )
       INSERT INTO team_list_tombstones (team_id, list, item_id)
       SELECT team_id, $1, id FROM o
        WHERE NOT EXISTS (SELECT 1 FROM n WHERE n.id = o.id AND n.team_id = o.team_id)'', sort_key)
      USING this_list\x3B
  END IF\x3B
  RETURN NULL\x3B
END
';

CREATE TRIGGER "events_track_insert" AFTER INSERT ON "events"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_track('events');
CREATE TRIGGER "events_track_update" AFTER UPDATE ON "events"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_track('events');
CREATE TRIGGER "events_track_delete" AFTER DELETE ON "events"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_track('events');
CREATE TRIGGER "events_track_truncate" AFTER TRUNCATE ON "events"
  FOR EACH STATEMENT EXECUTE FUNCTION team_list_track('events');
CREATE TRIGGER "guides_track_insert" AFTER INSERT ON "guides"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_track('guides');
CREATE TRIGGER "guides_track_update" AFTER UPDATE ON "guides"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_track('guides');
CREATE TRIGGER "guides_track_delete" AFTER DELETE ON "guides"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_track('guides');
CREATE TRIGGER "guides_track_truncate" AFTER TRUNCATE ON "guides"
  FOR EACH STATEMENT EXECUTE FUNCTION team_list_track('guides');

-- Every list item embeds its account: the lists that show an updated account change. Which teams
-- those are is decided at commit, when a fresh snapshot sees items committed meanwhile.
CREATE FUNCTION "team_list_track_accounts"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO team_list_pending (kind, account_ids)
  SELECT ''accounts'', array_agg(id) FROM (SELECT id FROM old_rows UNION SELECT id FROM new_rows) a HAVING count(*) > 0\x3B
  RETURN NULL\x3B
END
';
CREATE TRIGGER "accounts_track_update" AFTER UPDATE ON "accounts"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_track_accounts();

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
CREATE FUNCTION "team_list_commit"() RETURNS trigger LANGUAGE plpgsql AS E'
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
  )
  SELECT (SELECT count(*) FROM taken),
         (SELECT array_agg(DISTINCT x) FROM taken, unnest(account_ids) x WHERE kind = ''lock''),
         (SELECT array_agg(DISTINCT x) FROM taken, unnest(account_ids) x WHERE kind = ''accounts''),
         (SELECT array_agg(DISTINCT list) FROM taken WHERE kind = ''truncate''),
         (SELECT array_agg(team_id ORDER BY team_id, list) FROM items),
         (SELECT array_agg(list ORDER BY team_id, list) FROM items),
         (SELECT array_agg(delta ORDER BY team_id, list) FROM items),
         (SELECT array_agg(low_key ORDER BY team_id, list) FROM items),
         (SELECT array_agg(high_key ORDER BY team_id, list) FROM items)
    INTO n_taken, lock_ids, renamed_ids, truncated_lists, p_team, p_list, p_delta, p_low, p_high\x3B
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

  -- A list locked by a TRUNCATE still running elsewhere cannot be read without waiting for that
  -- transaction, whose own commit may need an account lock this batch holds: every team of the
  -- list is touched instead (its commit recounts them all anyway; its rollback leaves them named).
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

  -- Only a list this transaction truncated is counted again (it holds the lock of that table): the
  -- count is a statement of its own, so the UPDATE of no batch names a list table.
  c_fresh := array_fill(NULL::bigint, ARRAY[array_length(c_team, 1)])\x3B
  IF truncated_lists IS NOT NULL THEN
    FOR i IN 1 .. array_length(c_team, 1) LOOP
      IF c_recount[i] THEN
        EXECUTE format(''SELECT count(*) FROM %I WHERE team_id = $1'', c_list[i]) INTO fresh_count USING c_team[i]\x3B
        c_fresh[i] := fresh_count\x3B
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

CREATE CONSTRAINT TRIGGER "team_list_pending_commit" AFTER INSERT ON "team_list_pending"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION team_list_commit();

-- A team's id is bound into access tokens' lookups, page validators, cursors and sync positions,
-- and a cascaded rename would count the team's items twice: ids of teams never change.
CREATE FUNCTION "teams_id_immutable"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  RAISE EXCEPTION ''team ids are immutable: team % cannot be renamed to %'', quote_literal(OLD.id), quote_literal(NEW.id)
    USING ERRCODE = ''restrict_violation'',
          HINT = ''Create a team with the new id and move its users, events and guides to it.''\x3B
END
';
CREATE TRIGGER "teams_id_immutable" BEFORE UPDATE OF "id" ON "teams"
  FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id") EXECUTE FUNCTION teams_id_immutable();
