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

-- team_list_commit then gave a new stamp with each new version and wrote one team_list_commits
-- row per list it moved (prisma/repeatable/team_list_commit.sql).
