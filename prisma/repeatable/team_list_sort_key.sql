-- Repeatable: the runner applies this file after the versioned migrations whenever its checksum
-- changes (docs/database.md, "Functions"). Edit the function here; never restate it in a migration.
-- Bodies are E'' strings that write each semicolon as \x3B, as the migrations did.
--
-- A list's sort key (an expression over the columns of its table), from its declaration in
-- team_lists; an undeclared list is an error. team_list_status_sql.sql has the same shape (the
-- duplicates tool pairs them): two accessors of one table, each its own object and so its own file.
CREATE OR REPLACE FUNCTION "team_list_sort_key"("list" TEXT) RETURNS TEXT LANGUAGE plpgsql STABLE AS E'
DECLARE
  found_key text\x3B
BEGIN
  SELECT d.sort_key INTO found_key FROM team_lists d WHERE d.list = team_list_sort_key.list\x3B
  IF found_key IS NULL THEN
    RAISE EXCEPTION ''team list % is not declared in team_lists'', team_list_sort_key.list\x3B
  END IF\x3B
  RETURN found_key\x3B
END
';
