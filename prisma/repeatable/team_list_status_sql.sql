-- Repeatable: the runner applies this file after the versioned migrations whenever its checksum
-- changes (docs/database.md, "Functions"). Edit the function here; never restate it in a migration.
-- Bodies are E'' strings that write each semicolon as \x3B, as the migrations did.
--
-- An item's status word over the columns of its list's table, as SQL text. The same words and
-- meaning as the `status` filter of each list's declaration (packages/db/src/lists/*.list.ts):
-- events from their data alone, guides over their sort key (a draft's key is infinity).
-- Read from the list's declaration (team_lists); an undeclared list is an error.
CREATE OR REPLACE FUNCTION "team_list_status_sql"("list" TEXT) RETURNS TEXT LANGUAGE plpgsql STABLE AS E'
DECLARE
  found_sql text\x3B
BEGIN
  SELECT d.status_sql INTO found_sql FROM team_lists d WHERE d.list = team_list_status_sql.list\x3B
  IF found_sql IS NULL THEN
    RAISE EXCEPTION ''team list % is not declared in team_lists'', team_list_status_sql.list\x3B
  END IF\x3B
  RETURN found_sql\x3B
END
';
