-- Per-team list statistics: the number of items of each list and a version that changes with every
-- write that can change a page of that list. Maintained by statement-level triggers in the same
-- transaction as the writes (whatever writes: the seed loader, psql, a future admin tool), so a
-- request reads its total and its cache validator from one row instead of counting the team's rows.

-- Versions come from one sequence: a value is never handed out twice, so a version stays unique even
-- when a team is deleted and created again (an old ETag can never match a new representation).
CREATE SEQUENCE "team_list_version_seq";

CREATE TABLE "team_list_stats" (
    "team_id" VARCHAR(64) NOT NULL,
    "list" TEXT NOT NULL,
    "item_count" BIGINT NOT NULL,
    "version" BIGINT NOT NULL,

    CONSTRAINT "team_list_stats_pkey" PRIMARY KEY ("team_id", "list"),
    CONSTRAINT "team_list_stats_list_check" CHECK ("list" IN ('events', 'guides')),
    CONSTRAINT "team_list_stats_item_count_check" CHECK ("item_count" >= 0)
);

ALTER TABLE "team_list_stats" ADD CONSTRAINT "team_list_stats_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The adapter that applies migrations splits scripts at every semicolon, so the function bodies are
-- E'' strings that write each semicolon as \x3B.
-- One function for both lists (TG_ARGV[0] names the list) and every operation. Inserts apply their
-- deltas in team order, so concurrent multi-team inserts lock the stats rows in the same order.
CREATE FUNCTION "team_list_stats_track"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  IF TG_OP = ''INSERT'' THEN
    INSERT INTO team_list_stats AS s (team_id, list, item_count, version)
    SELECT team_id, TG_ARGV[0], count(*), nextval(''team_list_version_seq'')
      FROM (SELECT team_id FROM new_rows ORDER BY team_id) d GROUP BY team_id ORDER BY team_id
    ON CONFLICT (team_id, list) DO UPDATE
      SET item_count = s.item_count + EXCLUDED.item_count, version = EXCLUDED.version\x3B
  ELSIF TG_OP = ''UPDATE'' THEN
    -- A row may move to a team that has no statistics yet: create them first, then apply the
    -- deltas (an INSERT ... ON CONFLICT would check a negative count before finding the conflict).
    INSERT INTO team_list_stats (team_id, list, item_count, version)
    SELECT DISTINCT team_id, TG_ARGV[0], 0, 0 FROM new_rows ORDER BY 1
    ON CONFLICT (team_id, list) DO NOTHING\x3B
    UPDATE team_list_stats s
       SET item_count = s.item_count + d.delta, version = nextval(''team_list_version_seq'')
      FROM (SELECT team_id, sum(delta) AS delta
              FROM (SELECT team_id, -1 AS delta FROM old_rows UNION ALL SELECT team_id, 1 FROM new_rows) c
             GROUP BY team_id) d
     WHERE s.team_id = d.team_id AND s.list = TG_ARGV[0]\x3B
  ELSIF TG_OP = ''DELETE'' THEN
    UPDATE team_list_stats s
       SET item_count = s.item_count - d.removed, version = nextval(''team_list_version_seq'')
      FROM (SELECT team_id, count(*) AS removed FROM old_rows GROUP BY team_id ORDER BY team_id) d
     WHERE s.team_id = d.team_id AND s.list = TG_ARGV[0]\x3B
  ELSIF TG_OP = ''TRUNCATE'' THEN
    UPDATE team_list_stats SET item_count = 0, version = nextval(''team_list_version_seq'') WHERE list = TG_ARGV[0]\x3B
  END IF\x3B
  RETURN NULL\x3B
END
';

CREATE TRIGGER "events_stats_insert" AFTER INSERT ON "events"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_stats_track('events');
CREATE TRIGGER "events_stats_update" AFTER UPDATE ON "events"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_stats_track('events');
CREATE TRIGGER "events_stats_delete" AFTER DELETE ON "events"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_stats_track('events');
CREATE TRIGGER "events_stats_truncate" AFTER TRUNCATE ON "events"
  FOR EACH STATEMENT EXECUTE FUNCTION team_list_stats_track('events');

CREATE TRIGGER "guides_stats_insert" AFTER INSERT ON "guides"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_stats_track('guides');
CREATE TRIGGER "guides_stats_update" AFTER UPDATE ON "guides"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_stats_track('guides');
CREATE TRIGGER "guides_stats_delete" AFTER DELETE ON "guides"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_stats_track('guides');
CREATE TRIGGER "guides_stats_truncate" AFTER TRUNCATE ON "guides"
  FOR EACH STATEMENT EXECUTE FUNCTION team_list_stats_track('guides');

-- Every list item embeds its account: a changed account changes the pages of the teams that list it.
CREATE FUNCTION "team_list_stats_account_changed"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  UPDATE team_list_stats s SET version = nextval(''team_list_version_seq'')
    FROM (
      SELECT DISTINCT team_id, ''events'' AS list FROM events WHERE account_id IN (SELECT id FROM old_rows)
      UNION
      SELECT DISTINCT team_id, ''guides'' FROM guides WHERE account_id IN (SELECT id FROM old_rows)
      ORDER BY 1, 2
    ) t
   WHERE s.team_id = t.team_id AND s.list = t.list\x3B
  RETURN NULL\x3B
END
';

CREATE TRIGGER "accounts_stats_update" AFTER UPDATE ON "accounts"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_stats_account_changed();

-- Rows that exist before this migration.
INSERT INTO team_list_stats (team_id, list, item_count, version)
SELECT team_id, 'events', count(*), nextval('team_list_version_seq') FROM events GROUP BY team_id;
INSERT INTO team_list_stats (team_id, list, item_count, version)
SELECT team_id, 'guides', count(*), nextval('team_list_version_seq') FROM guides GROUP BY team_id;

-- The guides list sorts drafts (no published_at) first, then newest first. As one key,
-- COALESCE(published_at, 'infinity') DESC, that order can be entered at any item with a single
-- range condition (a keyset seek), which the nullable column alone cannot offer. INCLUDE carries
-- the column itself, without which PostgreSQL never plans an index-only scan over an expression.
-- Prisma's schema language cannot express an expression index, so this one lives here only.
DROP INDEX "guides_team_list_idx";
CREATE INDEX "guides_team_list_key_idx" ON "guides"("team_id", (COALESCE("published_at", 'infinity'::timestamptz)) DESC, "id") INCLUDE ("published_at");
