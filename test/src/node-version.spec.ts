import { readFileSync } from "node:fs";
import { type PackageJson, readJson, repoPath, workspacePackageDirs } from "./docker-files";

interface Manifest extends PackageJson {
  engines?: { node?: string };
  devDependencies?: Record<string, string>;
  private?: boolean;
}

/** .nvmrc names the exact Node.js release the project is tested on; everything else follows it. */
const nvmrc = readFileSync(repoPath(".nvmrc"), "utf8").trim();
const [major, minor, patch] = nvmrc.split(".").map(Number) as [number, number, number];
const root = readJson<Manifest>("package.json");

describe("Node.js version", () => {
  it(".nvmrc names one exact release of an LTS (even) line", () => {
    expect(nvmrc).toMatch(/^\d+\.\d+\.\d+$/);
    expect(major % 2).toBe(0);
  });

  it("engines of the root and every workspace package name that line, and the tested release satisfies them", () => {
    const engines = root.engines?.node ?? "";
    const [, lowMajor, lowMinor, lowPatch] = (/^>=(\d+)\.(\d+)\.(\d+)$/.exec(engines) ?? []).map(Number);
    expect(lowMajor).toBe(major);
    expect(minor * 1e6 + patch).toBeGreaterThanOrEqual((lowMinor ?? Number.NaN) * 1e6 + (lowPatch ?? Number.NaN));
    const differing = workspacePackageDirs()
      .map((dir) => ({ dir, manifest: readJson<Manifest>(`${dir}/package.json`) }))
      .filter((p) => p.manifest.private === true && p.manifest.engines?.node !== engines)
      .map((p) => p.dir);
    expect(differing).toEqual([]);
  });

  // A package that other teams install (not private) names the releases its consumers may run,
  // an older LTS line included; the tested release must be one of them.
  it("engines of a published package admit the tested release", () => {
    const published = workspacePackageDirs()
      .map((dir) => ({ dir, manifest: readJson<Manifest>(`${dir}/package.json`) }))
      .filter((p) => p.manifest.private !== true);
    expect(published.map((p) => p.dir)).toContain("packages/client");
    for (const { manifest } of published) {
      const [, lowMajor, lowMinor, lowPatch] = (/^>=(\d+)\.(\d+)\.(\d+)$/.exec(manifest.engines?.node ?? "") ?? []).map(
        Number,
      );
      expect((lowMajor ?? Number.NaN) % 2).toBe(0);
      const low = (lowMajor ?? Number.NaN) * 1e12 + (lowMinor ?? Number.NaN) * 1e6 + (lowPatch ?? Number.NaN);
      expect(major * 1e12 + minor * 1e6 + patch).toBeGreaterThanOrEqual(low);
    }
  });

  it("types the code with @types/node of the same line", () => {
    expect(root.devDependencies?.["@types/node"]).toMatch(new RegExp(`^\\^?${major}\\.`));
  });

  it("runs the README's two commands on that release and the pinned pnpm, from the npm registry", () => {
    const readme = readFileSync(repoPath("README.md"), "utf8");
    const pnpm = root.packageManager?.split("@")[1];
    const section = readme.slice(readme.indexOf("## The two commands"));
    const commands = (/```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "")
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("#"));
    expect(commands).toHaveLength(2);
    for (const command of commands) {
      expect(command).toContain(`npx -y -p node@${nvmrc} -p pnpm@${pnpm} -- sh -c 'pnpm install --frozen-lockfile && `);
    }
    expect(commands.map((command) => /&& (pnpm \w+)'$/.exec(command)?.[1])).toEqual(["pnpm start", "pnpm test"]);
  });

  it("CI installs the release .nvmrc names before it runs anything else", () => {
    const ci = readFileSync(repoPath(".ci/run"), "utf8");
    const reads = ci.indexOf("<.nvmrc");
    expect(reads).toBeGreaterThan(-1);
    expect(reads).toBeLessThan(ci.indexOf("pnpm install"));
    expect(ci).toContain('"$NODE_PACKAGE@$NODE_VERSION"');
  });
});
