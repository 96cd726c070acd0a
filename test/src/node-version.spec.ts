import { readFileSync } from "node:fs";
import { type PackageJson, readJson, repoPath, workspacePackageDirs } from "./docker-files";

interface Manifest extends PackageJson {
  engines?: { node?: string };
  devDependencies?: Record<string, string>;
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
      .map((dir) => ({ dir, engines: readJson<Manifest>(`${dir}/package.json`).engines?.node }))
      .filter((p) => p.engines !== engines);
    expect(differing).toEqual([]);
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
