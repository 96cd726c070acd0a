-- Where each list changed: for every statement that moves items of a team's list (insert, delete,
-- a change of team or of sort key), the range of sort keys it touched, tagged with the list version
-- that statement produced. A reader holding page boundaries of an older version re-reads only the
-- boundaries inside the ranges changed since, and shifts those after them by the net count, instead
-- of re-reading the whole list (packages/db/src/lists/page-boundaries.ts, docs/database.md).
-- A write that changes no position (an account rename, a new title) moves the version and logs
-- nothing: the boundaries stay valid as they are.
CREATE TABLE "team_list_changes" (
    "team_id" VARCHAR(64) NOT NULL,
    "list" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    -- The lowest and highest sort key touched (guides: COALESCE(published_at, 'infinity')).
    "low_key" TIMESTAMPTZ NOT NULL,
    "high_key" TIMESTAMPTZ NOT NULL,

    CONSTRAINT "team_list_changes_list_check" CHECK ("list" IN ('events', 'guides'))
);

CREATE INDEX "team_list_changes_team_list_version_idx" ON "team_list_changes"("team_id", "list", "version");

ALTER TABLE "team_list_changes" ADD CONSTRAINT "team_list_changes_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Runs after team_list_stats_track in the same statement (triggers of one event fire in name
-- order: "events_stats_insert" < "events_stats_insert_ranges"), so the stats row is already locked
-- and carries this statement's version: a change is logged with a version greater than any
-- version a reader could have seen before it. Each team keeps at most 32 entries: older ones are
-- merged into one entry whose range covers them all and whose version is the newest of them,
-- which is conservative (a reader may re-read more than changed, never less).
-- A statement that fills a list that was empty (a team created, or deleted and created again,
-- which drops its log with it) logs the whole range: no boundary read before it can be kept.
-- The key expression is chosen from the list name (constants only) and run with EXECUTE, which
-- sees the statement's transition tables like static SQL does.
CREATE FUNCTION "team_list_changes_track"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  this_list text := TG_ARGV[0]\x3B
  sort_key text := CASE TG_ARGV[0] WHEN ''events'' THEN ''scheduled_at'' ELSE ''COALESCE(published_at, ''''infinity''''::timestamptz)'' END\x3B
  moved text\x3B
  teams text[]\x3B
  this_team text\x3B
BEGIN
  IF TG_OP = ''TRUNCATE'' THEN
    INSERT INTO team_list_changes (team_id, list, version, low_key, high_key)
    SELECT team_id, list, version, ''-infinity'', ''infinity'' FROM team_list_stats WHERE team_list_stats.list = TG_ARGV[0]\x3B
    RETURN NULL\x3B
  ELSIF TG_OP = ''INSERT'' THEN
    moved := format(''SELECT team_id, %s AS k, 1 AS d FROM new_rows'', sort_key)\x3B
  ELSIF TG_OP = ''DELETE'' THEN
    moved := format(''SELECT team_id, %s AS k, -1 AS d FROM old_rows'', sort_key)\x3B
  ELSE
    -- Only rows whose team or sort key changed move, from their old place and to their new one.
    moved := format(
      ''SELECT o.team_id, o.%1$s AS k, -1 AS d FROM old_rows o JOIN new_rows n USING (id)
         WHERE (o.team_id, o.%1$s) IS DISTINCT FROM (n.team_id, n.%1$s)
        UNION ALL
        SELECT n.team_id, n.%1$s, 1 FROM old_rows o JOIN new_rows n USING (id)
         WHERE (o.team_id, o.%1$s) IS DISTINCT FROM (n.team_id, n.%1$s)'',
      CASE TG_ARGV[0] WHEN ''events'' THEN ''scheduled_at'' ELSE ''published_at'' END)\x3B
    IF TG_ARGV[0] = ''guides'' THEN
      moved := format(''SELECT team_id, COALESCE(k, ''''infinity''''::timestamptz) AS k, d FROM (%s) m'', moved)\x3B
    END IF\x3B
  END IF\x3B
  EXECUTE format(
    ''WITH logged AS (
       INSERT INTO team_list_changes (team_id, list, version, low_key, high_key)
       SELECT m.team_id, $1, s.version,
              CASE WHEN s.item_count = sum(m.d) THEN ''''-infinity''''::timestamptz ELSE min(m.k) END,
              CASE WHEN s.item_count = sum(m.d) THEN ''''infinity''''::timestamptz ELSE max(m.k) END
         FROM (%s) m JOIN team_list_stats s ON s.team_id = m.team_id AND s.list = $1
        GROUP BY m.team_id, s.version, s.item_count
       RETURNING team_id)
     SELECT array_agg(team_id ORDER BY team_id) FROM logged'', moved) INTO teams USING this_list\x3B
  FOREACH this_team IN ARRAY COALESCE(teams, ''{}'') LOOP
    IF (SELECT count(*) FROM team_list_changes c WHERE c.team_id = this_team AND c.list = this_list) > 32 THEN
      WITH merged AS (
        DELETE FROM team_list_changes c
         WHERE c.team_id = this_team AND c.list = this_list
           AND c.version < (SELECT l.version FROM team_list_changes l
                             WHERE l.team_id = this_team AND l.list = this_list
                             ORDER BY l.version DESC OFFSET 15 LIMIT 1)
        RETURNING c.version, c.low_key, c.high_key
      )
      INSERT INTO team_list_changes (team_id, list, version, low_key, high_key)
      SELECT this_team, this_list, max(m.version), min(m.low_key), max(m.high_key) FROM merged m HAVING count(*) > 0\x3B
    END IF\x3B
  END LOOP\x3B
  RETURN NULL\x3B
END
';

CREATE TRIGGER "events_stats_insert_ranges" AFTER INSERT ON "events"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_changes_track('events');
CREATE TRIGGER "events_stats_update_ranges" AFTER UPDATE ON "events"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_changes_track('events');
CREATE TRIGGER "events_stats_delete_ranges" AFTER DELETE ON "events"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_changes_track('events');
CREATE TRIGGER "events_stats_truncate_ranges" AFTER TRUNCATE ON "events"
  FOR EACH STATEMENT EXECUTE FUNCTION team_list_changes_track('events');

CREATE TRIGGER "guides_stats_insert_ranges" AFTER INSERT ON "guides"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_changes_track('guides');
CREATE TRIGGER "guides_stats_update_ranges" AFTER UPDATE ON "guides"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_changes_track('guides');
CREATE TRIGGER "guides_stats_delete_ranges" AFTER DELETE ON "guides"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION team_list_changes_track('guides');
CREATE TRIGGER "guides_stats_truncate_ranges" AFTER TRUNCATE ON "guides"
  FOR EACH STATEMENT EXECUTE FUNCTION team_list_changes_track('guides');
