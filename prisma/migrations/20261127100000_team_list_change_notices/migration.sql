-- Long poll on the changes feed (contract 10.1): every commit that changes a team's list tells
-- the api's replicas "look now" on the channel team_list_changed, payload '<team id> <list>'.
-- team_list_stats has one row per team and list, written at COMMIT by the change tracking
-- (team_list_commit) of every transaction that touched that list, whatever the path (the api, the
-- seed command, another system's SQL). A notice is delivered when its transaction commits, and
-- PostgreSQL sends a transaction's identical notices once. The feed stays the source of truth: a
-- notice carries no data, only which list to read again (packages/db/src/change-notices.ts).
--
-- A trigger of its own, so that the change tracking's functions are not replaced here.
-- The adapter that applies migrations splits scripts at every semicolon, so function bodies are
-- E'' strings that write each semicolon as \x3B.
CREATE FUNCTION "team_list_notify_change"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  PERFORM pg_notify(''team_list_changed'', NEW.team_id || '' '' || NEW.list)\x3B
  RETURN NULL\x3B
END
';

CREATE TRIGGER "team_list_stats_notify" AFTER INSERT OR UPDATE ON "team_list_stats"
  FOR EACH ROW EXECUTE FUNCTION team_list_notify_change();
