-- Calendar feeds (contract 11): secret URLs that serve a team's events as an iCalendar file.
--
-- A feed is found by the SHA-256 of its secret (the secret itself is never stored). It records the
-- team its user was in when it was made: a user who leaves that team (or is moved to another, or
-- is deleted) loses every feed at once (the trigger on users below, and the cascade), and the feed
-- lookup also demands that the user has been in the feed's team, without a break, since the feed
-- was made (users.team_since, set whenever team_id changes), so a feed never comes back with its
-- user.
--
-- Each event carries what its VEVENT needs to stay stable across fetches: calendar_sequence (the
-- SEQUENCE), which grows by one whenever something the VEVENT shows changes (name, description,
-- cover, start, duration, canceled or not) and never shrinks, and calendar_stamp (the DTSTAMP),
-- when that last happened.
--
-- The adapter that applies migrations splits scripts at every semicolon, so function bodies are
-- E'' strings that write each semicolon as \x3B.

ALTER TABLE "events"
    ADD COLUMN "calendar_sequence" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "calendar_stamp" TIMESTAMPTZ(0) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- Writers never set these: the trigger keeps them from the old row, one step up when the VEVENT
-- changes.
CREATE FUNCTION "events_calendar_revision"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  IF (NEW.name, NEW.description, NEW.cover_url, NEW.duration_seconds, NEW.scheduled_at, NEW.canceled_at IS NULL)
     IS DISTINCT FROM
     (OLD.name, OLD.description, OLD.cover_url, OLD.duration_seconds, OLD.scheduled_at, OLD.canceled_at IS NULL) THEN
    NEW.calendar_sequence := OLD.calendar_sequence + 1\x3B
    NEW.calendar_stamp := clock_timestamp()\x3B
  ELSE
    NEW.calendar_sequence := OLD.calendar_sequence\x3B
    NEW.calendar_stamp := OLD.calendar_stamp\x3B
  END IF\x3B
  RETURN NEW\x3B
END
';

CREATE TRIGGER "events_calendar_revision" BEFORE UPDATE ON "events"
  FOR EACH ROW EXECUTE FUNCTION events_calendar_revision();

CREATE TABLE "calendar_feeds" (
    "id" VARCHAR(40) NOT NULL,
    "user_id" VARCHAR(64) NOT NULL,
    -- The user's team when the feed was made: the one whose events it serves.
    "team_id" VARCHAR(64) NOT NULL,
    "name" VARCHAR(100),
    -- SHA-256 of the secret ("cal_" and the base64url of 32 random bytes), as 64 hex digits.
    "secret_hash" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    -- Written by the feed's lookup at most every 5 minutes.
    "last_fetched_at" TIMESTAMPTZ(3),

    CONSTRAINT "calendar_feeds_pkey" PRIMARY KEY ("id")
);
ALTER TABLE "calendar_feeds" ADD CONSTRAINT "calendar_feeds_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "calendar_feeds" ADD CONSTRAINT "calendar_feeds_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE UNIQUE INDEX "calendar_feeds_secret_hash_key" ON "calendar_feeds"("secret_hash");
CREATE INDEX "calendar_feeds_owner_idx" ON "calendar_feeds"("user_id", "created_at");

-- A user who leaves a team (or is moved to another) loses their feeds, in the same transaction.
CREATE FUNCTION "calendar_feeds_stop_left_team"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  DELETE FROM calendar_feeds WHERE user_id = NEW.id\x3B
  RETURN NULL\x3B
END
';

CREATE TRIGGER "users_calendar_feeds_team" AFTER UPDATE OF "team_id" ON "users"
  FOR EACH ROW WHEN (OLD.team_id IS DISTINCT FROM NEW.team_id) EXECUTE FUNCTION calendar_feeds_stop_left_team();
