import { spawnSync } from "node:child_process";
import { repoPath } from "./docker-files";

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; message: string }>;
}

/**
 * docs/openapi.json under the linter its users run: Redocly's recommended rules with warnings as
 * errors and Spectral's spectral:oas extras (redocly.yaml). The exceptions are the ones that
 * .redocly.lint-ignore.yaml lists and explains.
 */
describe("docs/openapi.json under redocly lint", () => {
  const lint = (file: string): { status: number | null; report: LintReport } => {
    const result = spawnSync(repoPath("node_modules/.bin/redocly"), ["lint", file, "--format=json"], {
      cwd: repoPath(),
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    return { status: result.status, report: JSON.parse(result.stdout) as LintReport };
  };

  it("reports no error and no warning", () => {
    const { status, report } = lint("docs/openapi.json");
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 4 });
    expect(status).toBe(0);
  }, 90_000);
});
