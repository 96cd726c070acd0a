import { readFileSync } from "node:fs";
import path from "node:path";
import { loadConfig, WORKSPACE_ROOT } from "../../apps/api/src/config/config";
import {
  type CopyInstruction,
  contextFiles,
  copyInstruction,
  defined,
  healthCheckExitCode,
  type Instruction,
  inContext,
  type PackageJson,
  patchFolders,
  readDockerfile,
  readJson,
  repoPath,
  type Stage,
  stageLineage,
  workspacePackageDirs,
} from "./docker-files";

const stages = readDockerfile();
const runtime = defined(stages.at(-1), "a stage");
const byName = new Map(stages.flatMap((stage) => (stage.name ? [[stage.name, stage] as const] : [])));

const all = (stage: Stage, keyword: string): Instruction[] =>
  stage.instructions.filter((instruction) => instruction.keyword === keyword);

/** The stage and its parents (FROM another stage), nearest first. */
const lineage = (stage: Stage): Stage[] => stageLineage(stages, stage);

/** The stage's WORKDIR, inherited from its parents. */
function workdir(stage: Stage): string {
  for (const s of lineage(stage)) {
    const last = all(s, "WORKDIR").at(-1);
    if (last) return last.args;
  }
  return "/";
}

/** Where a context COPY puts its sources, relative to the WORKDIR. */
function copiedPaths(copy: CopyInstruction): string[] {
  const intoFolder = copy.destination.endsWith("/") || copy.destination === "." || copy.sources.length > 1;
  return copy.sources.map((source) =>
    path.posix.normalize(
      intoFolder ? path.posix.join(copy.destination, path.posix.basename(source)) : copy.destination,
    ),
  );
}

/** RUN commands, --mount flags dropped. */
const runs = (stage: Stage): string[] => all(stage, "RUN").map((run) => run.args.replace(/^(--\S+\s+)+/, ""));

describe("Dockerfile", () => {
  it("is multi-stage: the runtime stage copies build output from other stages", () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    const fromStages = all(runtime, "COPY")
      .map(copyInstruction)
      .flatMap((copy) => (copy.from ? [copy.from] : []));
    expect(fromStages.length).toBeGreaterThan(0);
    for (const name of fromStages) expect(byName.has(name)).toBe(true);
    // No compiler or dev install in the final image: the build happens elsewhere.
    expect(lineage(runtime).flatMap(runs)).not.toContainEqual(
      expect.stringMatching(/pnpm (build|install(?!.*--prod))/),
    );
  });

  it("runs as a non-root user", () => {
    const users = lineage(runtime).flatMap((stage) => all(stage, "USER"));
    const user = users[0]?.args.split(":")[0];
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)$/);
    const cmd = defined(all(runtime, "CMD").at(-1), "CMD");
    expect(defined(users[0], "USER").line).toBeLessThan(cmd.line);
  });

  it("starts the api with node apps/api/dist/main.js, a heap budget, in production mode", () => {
    const cmd = defined(all(runtime, "CMD").at(-1), "CMD");
    expect(JSON.parse(cmd.args)).toEqual([
      "node",
      expect.stringMatching(/^--max-old-space-size=\d+$/),
      expect.stringMatching(/^--max-semi-space-size=\d+$/),
      "apps/api/dist/main.js",
    ]);
    // The same file the api package calls its entry point.
    expect(path.posix.join("apps/api", defined(readJson<PackageJson>("apps/api/package.json").main, "main"))).toBe(
      "apps/api/dist/main.js",
    );
    const env = lineage(runtime).flatMap((stage) => all(stage, "ENV").map((e) => e.args));
    expect(env.join(" ")).toMatch(/(^|\s)NODE_ENV=production(\s|$)/);
    expect(all(runtime, "EXPOSE").map((e) => e.args)).toContain("3000");
  });

  it("installs the pnpm version that package.json pins, from the frozen lockfile, and builds with pnpm build", () => {
    const pinned = readJson<PackageJson>("package.json").packageManager;
    expect(pinned).toMatch(/^pnpm@\d+\.\d+\.\d+$/);
    const commands = stages.flatMap(runs);
    expect(commands).toContain(`npm install -g ${pinned}`);
    // The one external image: the Node.js line of .nvmrc, by tag or pinned by digest (docs/deployment.md).
    const major = readFileSync(repoPath(".nvmrc"), "utf8").trim().split(".")[0];
    expect(stages[0]?.from).toMatch(new RegExp(`^node:${major}-bookworm-slim(@sha256:[0-9a-f]{64})?$`));
    for (const stage of stages.slice(1)) expect(byName.has(stage.from)).toBe(true);
    const installs = commands.filter((c) => c.startsWith("pnpm install"));
    expect(installs.length).toBeGreaterThan(0);
    for (const install of installs) expect(install).toContain("--frozen-lockfile");
    expect(commands).toContain("pnpm build");
  });

  it("copies every workspace manifest and the lockfile before each install", () => {
    const manifests = ["package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", ".npmrc"];
    for (const dir of workspacePackageDirs()) manifests.push(`${dir}/package.json`);
    // Dependencies run as published (docs/decisions.md, "Prisma 7 as published"): no patch to copy.
    expect(patchFolders()).toEqual([]);
    const installing = stages.filter((stage) => runs(stage).some((command) => command.startsWith("pnpm install")));
    expect(installing.length).toBeGreaterThan(0);
    for (const stage of installing) {
      const copied: string[] = [];
      copying: for (const s of lineage(stage).reverse()) {
        for (const instruction of s.instructions) {
          if (instruction.keyword === "RUN" && instruction.args.includes("pnpm install")) break copying;
          if (instruction.keyword === "COPY") copied.push(...copiedPaths(copyInstruction(instruction)));
        }
      }
      expect({ stage: stage.name, copied }).toEqual({ stage: stage.name, copied: expect.arrayContaining(manifests) });
    }
  });

  it("copies only paths that the build context holds or that the build produces", () => {
    const files = contextFiles();
    const missing: string[] = [];
    for (const stage of stages) {
      for (const copy of all(stage, "COPY").map(copyInstruction)) {
        for (const source of copy.sources) {
          if (!copy.from) {
            if (!inContext(files, source)) missing.push(`line ${copy.line}: ${source}`);
            continue;
          }
          const origin = byName.get(copy.from);
          if (!origin) {
            missing.push(`line ${copy.line}: no stage ${copy.from}`);
            continue;
          }
          const relative = path.posix.relative(workdir(origin), source);
          if (relative === "") continue; // the stage's whole WORKDIR
          const distOf = /^(.+)\/dist$/.exec(relative)?.[1];
          if (distOf) {
            // Built by `pnpm build`: the package must have a build script that writes there.
            const pkg = readJson<PackageJson>(`${distOf}/package.json`);
            if (!pkg.scripts?.build) missing.push(`line ${copy.line}: ${relative} (no build script)`);
          } else if (!inContext(files, relative)) {
            missing.push(`line ${copy.line}: ${relative}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("ships the built output of the api, the seed CLI and every workspace package they depend on", () => {
    const dirByName = new Map(
      workspacePackageDirs().map((dir) => [readJson<PackageJson>(`${dir}/package.json`).name, dir]),
    );
    const needed = new Set<string>();
    const visit = (dir: string) => {
      if (needed.has(dir)) return;
      needed.add(dir);
      for (const [name, version] of Object.entries(readJson<PackageJson>(`${dir}/package.json`).dependencies ?? {})) {
        const workspaceDir = dirByName.get(name);
        if (version.startsWith("workspace:") && workspaceDir) visit(workspaceDir);
      }
    };
    visit("apps/api");
    visit("apps/seed");
    const shipped = all(runtime, "COPY")
      .map(copyInstruction)
      .flatMap((copy) => copy.sources.map((source) => path.posix.relative("/app", source)));
    expect(shipped).toEqual(
      expect.arrayContaining([
        ...[...needed].map((dir) => `${dir}/dist`),
        // What the migrate service runs: `pnpm db:migrate` (packages/db's runner) over prisma/migrations.
        "prisma",
        "packages/db/prisma.config.ts",
      ]),
    );
    expect(needed).toContain("packages/fixtures");
  });

  it("checks its health with node on /health/ready at the image's PORT (the image has no curl)", async () => {
    const healthcheck = defined(all(runtime, "HEALTHCHECK").at(-1), "HEALTHCHECK");
    const [, options = "", exec = ""] = /^((?:--\S+\s+)*)CMD\s+(\[.*\])$/.exec(healthcheck.args) ?? [];
    const [binary, flag, script] = JSON.parse(exec) as string[];
    expect([binary, flag]).toEqual(["node", "-e"]);
    expect(script).toContain("/health/ready");
    // The first embedded start migrates and loads the demo data before it is ready.
    const startPeriod = /--start-period=(\d+)s/.exec(options)?.[1];
    expect(Number(startPeriod)).toBeGreaterThanOrEqual(30);
    // Run the one-liner against a stand-in server on the PORT it is given: exit 0 on 200 only.
    const exitCodeFor = (status: number | undefined) =>
      healthCheckExitCode(status, (port) => ({ script: defined(script, "script"), env: { PORT: String(port) } }));
    expect(await exitCodeFor(200)).toBe(0);
    expect(await exitCodeFor(503)).toBe(1);
    expect(await exitCodeFor(undefined)).toBe(1);
  });

  it("starts the embedded demo with no DATABASE_URL: its data directory belongs to the node user", () => {
    // The default EMBEDDED_DATA_DIR under the workspace root, which is the runtime's WORKDIR.
    expect(workdir(runtime)).toBe("/app");
    const dataDir = path.relative(WORKSPACE_ROOT, loadConfig({}).embeddedDataDir);
    const parent = defined(dataDir.split(path.sep)[0], "data directory");
    expect(parent).toBe(".data");
    const user = defined(all(runtime, "USER").at(-1), "USER");
    const chown = all(runtime, "RUN").find((run) => run.args === `mkdir ${parent} && chown 1000:1000 ${parent}`);
    // uid 1000 is `node` in the official images; created before the image switches to it.
    expect(user.args).toBe("node");
    expect(defined(chown, `RUN mkdir ${parent} && chown 1000:1000 ${parent}`).line).toBeLessThan(user.line);
    const env = lineage(runtime).flatMap((stage) => all(stage, "ENV").map((e) => e.args));
    expect(env.join(" ")).not.toMatch(/(^|\s)(DATABASE_URL|EMBEDDED_DATA_DIR)=/);
  });
});
