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

-- Its statement triggers on events and guides (team_list_changes_track) were replaced by
-- 20261124120000_team_list_commit_tracking, which dropped them: they are no longer created here
-- (docs/database.md, "Functions").
