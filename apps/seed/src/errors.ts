import type { FixtureIssue } from "@community/domain";

/** A fixture that cannot be loaded as it is; `issues` names every bad entry by JSON path. */
export class FixtureValidationError extends Error {
  readonly issues: readonly FixtureIssue[];

  constructor(issues: readonly FixtureIssue[]) {
    const shown = issues.slice(0, 3).map((issue) => `${issue.path}: ${issue.message}`);
    const more = issues.length > shown.length ? `; and ${issues.length - shown.length} more` : "";
    super(`the fixture has ${issues.length} issue${issues.length === 1 ? "" : "s"}: ${shown.join("; ")}${more}`);
    this.name = "FixtureValidationError";
    this.issues = issues;
  }
}
