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

-- Its statement triggers on events, guides and accounts (team_list_stats_track,
-- team_list_stats_account_changed) were replaced by 20261124120000_team_list_commit_tracking,
-- which dropped them: they are no longer created here (docs/database.md, "Functions").

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
