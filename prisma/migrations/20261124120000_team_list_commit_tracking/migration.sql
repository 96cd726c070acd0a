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

-- The statement triggers of 20261122200000 and 20261123200000: those migrations no longer create
-- them, but a database that applied them before they were rewritten has them (docs/database.md,
-- "Functions").
DROP TRIGGER IF EXISTS "events_stats_insert" ON "events";
DROP TRIGGER IF EXISTS "events_stats_update" ON "events";
DROP TRIGGER IF EXISTS "events_stats_delete" ON "events";
DROP TRIGGER IF EXISTS "events_stats_truncate" ON "events";
DROP TRIGGER IF EXISTS "guides_stats_insert" ON "guides";
DROP TRIGGER IF EXISTS "guides_stats_update" ON "guides";
DROP TRIGGER IF EXISTS "guides_stats_delete" ON "guides";
DROP TRIGGER IF EXISTS "guides_stats_truncate" ON "guides";
DROP TRIGGER IF EXISTS "events_stats_insert_ranges" ON "events";
DROP TRIGGER IF EXISTS "events_stats_update_ranges" ON "events";
DROP TRIGGER IF EXISTS "events_stats_delete_ranges" ON "events";
DROP TRIGGER IF EXISTS "events_stats_truncate_ranges" ON "events";
DROP TRIGGER IF EXISTS "guides_stats_insert_ranges" ON "guides";
DROP TRIGGER IF EXISTS "guides_stats_update_ranges" ON "guides";
DROP TRIGGER IF EXISTS "guides_stats_delete_ranges" ON "guides";
DROP TRIGGER IF EXISTS "guides_stats_truncate_ranges" ON "guides";
DROP TRIGGER IF EXISTS "accounts_stats_update" ON "accounts";
DROP FUNCTION IF EXISTS "team_list_stats_track"();
DROP FUNCTION IF EXISTS "team_list_changes_track"();
DROP FUNCTION IF EXISTS "team_list_stats_account_changed"();

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
-- Its body: prisma/repeatable/team_list_track.sql, applied after the migrations (docs/database.md,
-- "Functions"). Here only a placeholder for the triggers below to name.
CREATE FUNCTION "team_list_track"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN RETURN NULL\x3B END';

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

-- Runs at COMMIT (deferred): applies a transaction's pending rows in one sorted batch.
-- Its body: prisma/repeatable/team_list_commit.sql, applied after the migrations (docs/database.md,
-- "Functions"). Here only a placeholder for the triggers below to name.
CREATE FUNCTION "team_list_commit"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN RETURN NULL\x3B END';

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
