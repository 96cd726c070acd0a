import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { demoFixture, demoOrigins } from "@community/fixtures";
import { type RunningApi, startCompiledApi } from "@community/fixtures/testing";
import { parse as parseCsv } from "csv-parse/sync";
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
      // Also a block indented under a list item, whose lines lose that indentation.
      const indent = /^( *)```(sh|bash)\s*$/.exec(lines[i] ?? "")?.[1];
      if (indent === undefined) continue;
      const end = lines.findIndex((line, j) => j > i && line.startsWith(`${indent}\`\`\``));
      if (end === -1) throw new Error(`${file}:${i + 1}: a shell block without its closing fence`);
      const body = lines.slice(i + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line));
      blocks.push({ where: `${file}:${i + 1}`, text: `${body.join("\n")}\n` });
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

/** The README's "Calling the API" and CLI blocks, run as pasted against the compiled api on the demo data. */
describe("README.md's curl and CLI examples", () => {
  let running: RunningApi;

  beforeAll(async () => {
    // A port known before the start, so that PUBLIC_URL and the demo clients' redirect URIs name it.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const publicUrl = `http://127.0.0.1:${port}`;
    running = await startCompiledApi("doc-shell-blocks", demoFixture(demoOrigins(publicUrl)), {
      PORT: String(port),
      PUBLIC_URL: publicUrl,
    });
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

  it("write the CLI's data alone to stdout and to events.json: a table, CSV that parses, JSON that parses", () => {
    const block = blocks.find((b) => b.where.startsWith("README.md:") && b.text.includes("COMMUNITY_API_TOKEN"));
    if (block === undefined) throw new Error("README.md has no block with the CLI examples");
    const commands = block.text.split("\n").map((line) => line.replace(/\s+#.*$/, "").trim());
    const setup = commands.filter((line) => line.startsWith("export "));
    const run = (command: string) => {
      // In a folder of the workspace (pnpm finds the root from it) that git ignores.
      mkdirSync(repoPath(".data"), { recursive: true });
      const dir = mkdtempSync(path.join(repoPath(".data"), "readme-cli-"));
      try {
        // The api listens on a free port: COMMUNITY_API_URL, which the block names, points there.
        const result = spawnSync("bash", ["-e", "-o", "pipefail", "-c", [...setup, command].join("\n")], {
          cwd: dir,
          encoding: "utf8",
          timeout: 120_000,
          env: { ...process.env, COMMUNITY_API_URL: running.baseUrl },
        });
        const files = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(path.join(dir, f), "utf8")]));
        // The one line a slow build prints (scripts/build-quietly.mjs), as the README says; nothing else.
        const stderr = result.stderr.replace(/^Building @community\/cli and the packages it uses .*\n/, "");
        return { status: result.status, stdout: result.stdout, stderr, files };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const [table, csv, json] = ["--format table", "--format csv", "--format json >"].map((format) => {
      const command = commands.find((line) => line.startsWith("pnpm") && line.includes(format));
      if (command === undefined) throw new Error(`no CLI example with ${format} in ${block.where}`);
      return run(command);
    });

    expect(table).toMatchObject({ status: 0, stderr: "" });
    expect(table?.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+SCHEDULED_AT\b/);
    expect(table?.stdout.trimEnd().split("\n")).toHaveLength(1 + 40);

    expect(csv).toMatchObject({ status: 0, stderr: "" });
    const rows = parseCsv(csv?.stdout ?? "", { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(10);
    expect(Object.keys(rows[0] ?? {})).toEqual(
      expect.arrayContaining(["id", "name", "published_at", "price_currency"]),
    );

    expect(json).toMatchObject({ status: 0, stdout: "", stderr: "" });
    const events = JSON.parse(json?.files["events.json"] ?? "") as Array<{ id: string }>;
    expect(events).toHaveLength(40);
    expect(events[0]?.id).toMatch(/^ev_runners_/);
  }, 240_000);

  it("sign in, exchange, list, refresh and revoke with curl as the README says, with no value to fill in", () => {
    const block = blocks.find((b) => b.where.startsWith("README.md:") && b.text.includes("oauth/token/revocation"));
    if (block === undefined) throw new Error("README.md has no curl block of the OAuth flow");
    const script = block.text
      .replaceAll("http://localhost:3000", running.baseUrl)
      .replaceAll(encodeURIComponent("http://localhost:3000"), encodeURIComponent(running.baseUrl));
    const result = spawnSync("bash", ["-e", "-o", "pipefail", "-c", script], { encoding: "utf8", timeout: 60_000 });
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: "" });
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/\/oauth\/auth\?response_type=code&client_id=demo-spa&/);
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ scope: "community:read", token_type: "Bearer" });
    expect(lines[2]).toMatch(/^\{"guides":\[\{"id":"ev_runners_/);
    expect(lines.slice(3)).toEqual(["revocation: 200", "events after revocation: 401"]);
  }, 90_000);
});
