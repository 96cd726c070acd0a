import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { demoFixture } from "@community/fixtures";
import { type RunningApi, startCompiledApi } from "@community/fixtures/testing";
import { type PackageJson, readJson, repoPath } from "./docker-files";

interface ShellBlock {
  /** `README.md:83`: the file and the line of the opening fence. */
  where: string;
  text: string;
}

/** Every ```sh and ```bash block of the README and of docs/. */
function shellBlocks(): ShellBlock[] {
  const files = [
    "README.md",
    ...readdirSync(repoPath("docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  return files.flatMap((file) => {
    const lines = readFileSync(repoPath(file), "utf8").split("\n");
    const blocks: ShellBlock[] = [];
    for (let i = 0; i < lines.length; i++) {
      if (!/^```(sh|bash)\s*$/.test(lines[i] ?? "")) continue;
      const end = lines.findIndex((line, j) => j > i && line.startsWith("```"));
      if (end === -1) throw new Error(`${file}:${i + 1}: a shell block without its closing fence`);
      blocks.push({ where: `${file}:${i + 1}`, text: `${lines.slice(i + 1, end).join("\n")}\n` });
      i = end;
    }
    return blocks;
  });
}

/**
 * Lines that bash reads differently from how they look: a backslash followed by blanks (and maybe a
 * comment) escapes a space instead of continuing the line, so the next line runs as a command of
 * its own; and an option line (`  --flag`) that no continuation leads to.
 */
export function brokenContinuations(text: string): string[] {
  const problems: string[] = [];
  const lines = text.split("\n");
  lines.forEach((line, index) => {
    if (/\\[ \t]+(#.*)?$/.test(line))
      problems.push(`line ${index + 1}: "\\" followed by blanks does not continue the line`);
    const previous = lines[index - 1];
    if (/^\s+-{1,2}\w/.test(line) && previous !== undefined && !/(\\|\||&&)\s*$/.test(previous)) {
      problems.push(`line ${index + 1}: an option line after a line that does not continue`);
    }
  });
  if (/\\\n*$/.test(text.trimEnd())) problems.push("the block ends inside a continuation");
  return problems;
}

const blocks = shellBlocks();

describe("shell blocks of README.md and docs/*.md", () => {
  it("finds the blocks", () => {
    expect(blocks.map((b) => b.where)).toEqual(expect.arrayContaining([expect.stringMatching(/^README\.md:/)]));
    expect(blocks.length).toBeGreaterThanOrEqual(10);
  });

  it.each(blocks.map((b) => [b.where, b] as const))("%s parses as bash", (_where, block) => {
    const result = spawnSync("bash", ["-n"], { input: block.text, encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it.each(blocks.map((b) => [b.where, b] as const))("%s continues its lines as it looks", (_where, block) => {
    expect(brokenContinuations(block.text)).toEqual([]);
  });

  it("names only pnpm scripts that exist", () => {
    const scripts = Object.keys(readJson<PackageJson>("package.json").scripts ?? {});
    const named = blocks.flatMap((b) =>
      [...b.text.matchAll(/(?:^|[;&|(]\s*|'\s*|&&\s*)pnpm\s+(?:-s\s+)?(?!--filter\b)([\w:-]+)/gm)].map((m) => [
        b.where,
        m[1],
      ]),
    );
    // `pnpm --filter <package> <script>` names a script of that workspace package.
    const packageScripts = (name: string): string[] => {
      const dir = ["packages", "apps"]
        .flatMap((root) => readdirSync(repoPath(root)).map((entry) => `${root}/${entry}`))
        .find((candidate) => readJson<PackageJson>(`${candidate}/package.json`).name === name);
      return dir === undefined ? [] : Object.keys(readJson<PackageJson>(`${dir}/package.json`).scripts ?? {});
    };
    const filtered = blocks.flatMap((b) =>
      [...b.text.matchAll(/pnpm\s+--filter\s+(\S+)\s+([\w:-]+)/g)].map(
        (m) => [b.where, m[1] ?? "", m[2] ?? ""] as const,
      ),
    );
    const pnpmBuiltIns = ["pack", "exec", "add"];
    expect(
      filtered.filter(([, pkg, script]) => !pnpmBuiltIns.includes(script) && !packageScripts(pkg).includes(script)),
    ).toEqual([]);
    const builtIns = ["install", "add", "exec", "dlx"];
    expect(named.filter(([, script]) => !scripts.includes(script ?? "") && !builtIns.includes(script ?? ""))).toEqual(
      [],
    );
  });

  it("catches a comment that breaks a continuation, and an orphan option line", () => {
    const broken = "kubectl create secret generic x \\\n  --from-literal=A=1 \\   # optional\n  --from-literal=B=2\n";
    expect(brokenContinuations(broken)).toEqual([
      expect.stringMatching(/line 2: .* does not continue/),
      expect.stringMatching(/line 3: an option line/),
    ]);
    expect(brokenContinuations("curl -i \\\n  --fail http://x\n")).toEqual([]);
  });
});

/** The README's "Calling the API" block, run as pasted against the compiled api on the demo data. */
describe("README.md's curl examples", () => {
  let running: RunningApi;

  beforeAll(async () => {
    running = await startCompiledApi("doc-shell-blocks", demoFixture());
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
  });

  it("answer as the README says: a page, headers, a 304 revalidation and a 400 problem", () => {
    const block = blocks.find((b) => b.where.startsWith("README.md:") && b.text.includes("If-None-Match"));
    if (block === undefined) throw new Error("README.md has no curl block with a revalidation");
    // The only change: the api listens on a free port instead of 3000.
    const script = block.text.replaceAll("http://localhost:3000", running.baseUrl);
    const result = spawnSync("bash", ["-e", "-o", "pipefail", "-c", script], { encoding: "utf8", timeout: 30_000 });
    // stderr has curl's progress meters (stdout is not a terminal).
    expect({ status: result.status, error: result.error }).toEqual({ status: 0, error: undefined });
    const out = result.stdout;
    expect(out).toMatch(/^\{"guides":\[\{"id":"ev_runners_/);
    // curl -i prints the head right after the previous body, which ends without a newline.
    expect(out).toMatch(/HTTP\/1\.1 200 OK\r?$/m);
    expect(out).toMatch(/^link: .*rel="next"/im);
    expect(out).toMatch(/HTTP\/1\.1 304 Not Modified\r?$/m);
    expect(out).toMatch(/HTTP\/1\.1 400 Bad Request\r?$/m);
    expect(out).toContain('"type":"https://community-team.dev/problems/invalid-query"');
  });
});
