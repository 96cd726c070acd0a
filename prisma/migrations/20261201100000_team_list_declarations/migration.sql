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

-- team_list_status_sql(list) and team_list_sort_key(list) read a list's facts from its
-- declaration, and team_list_track its sort key from there (prisma/repeatable/).
