import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { repoPath } from "./docker-files";

interface Lockfile {
  packages?: Record<string, unknown>;
}

/** `@types/pg@8.23.1` -> ["@types/pg", "8.23.1"]; a scoped name keeps its first "@". */
function nameAndVersion(key: string): [string, string] {
  const at = key.indexOf("@", 1);
  return [key.slice(0, at), key.slice(at + 1)];
}

describe("pnpm lockfile", () => {
  // A package whose types import another's without depending on its @types package (as
  // @prisma/adapter-pg does with "pg") resolves them through the copy pnpm hoists into
  // node_modules/.pnpm/node_modules. With two versions in the tree that copy is either one, from
  // one install to the next, and the typecheck passes or fails by chance.
  it("holds one version of each @types package", () => {
    const lock = parse(readFileSync(repoPath("pnpm-lock.yaml"), "utf8")) as Lockfile;
    const versions = new Map<string, string[]>();
    for (const key of Object.keys(lock.packages ?? {})) {
      const [name, version] = nameAndVersion(key);
      if (name.startsWith("@types/")) versions.set(name, [...(versions.get(name) ?? []), version]);
    }
    expect(versions.size).toBeGreaterThan(10);
    const several = [...versions].filter(([, v]) => v.length > 1).map(([name, v]) => `${name}: ${v.join(", ")}`);
    expect(several).toEqual([]);
  });
});
