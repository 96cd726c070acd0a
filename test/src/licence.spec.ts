import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { buildOpenApiDocument } from "../../apps/api/src/openapi/openapi-document";
import { readJson, repoPath } from "./docker-files";

/** The workspace's package folders, from pnpm-workspace.yaml's globs (`apps/*`, `bench`, ...). */
function workspacePackages(): string[] {
  const globs = (parse(readFileSync(repoPath("pnpm-workspace.yaml"), "utf8")) as { packages: string[] }).packages;
  return globs.flatMap((glob) => {
    if (!glob.endsWith("/*")) return [glob];
    const parent = glob.slice(0, -2);
    return readdirSync(repoPath(parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(repoPath(parent, entry.name, "package.json")))
      .map((entry) => path.join(parent, entry.name));
  });
}

describe("the project's licence", () => {
  it("ships the Apache License 2.0 text unchanged at the root", () => {
    // MD5 of https://www.apache.org/licenses/LICENSE-2.0.txt, the text every Apache-2.0 project ships.
    const md5 = createHash("md5")
      .update(readFileSync(repoPath("LICENSE")))
      .digest("hex");
    expect(md5).toBe("3b83ef96387f14655fc854ddc3c6bd57");
  });

  it("names Apache-2.0 (SPDX) in every package.json of the workspace", () => {
    const packages = ["", ...workspacePackages()];
    expect(packages).toEqual(expect.arrayContaining(["apps/api", "packages/client", "apps/cli", "bench"]));
    const licences = Object.fromEntries(
      packages.map((dir) => [dir || ".", readJson<{ license?: string }>(path.join(dir, "package.json")).license]),
    );
    expect(licences).toEqual(Object.fromEntries(packages.map((dir) => [dir || ".", "Apache-2.0"])));
  });

  it("names the same licence in the OpenAPI document", () => {
    expect(buildOpenApiDocument().info).toMatchObject({
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    });
  });

  it("says how to report a vulnerability and keeps a changelog with an Unreleased section", () => {
    const security = readFileSync(repoPath("SECURITY.md"), "utf8");
    expect(security).toMatch(/## Supported versions/);
    expect(security).toMatch(/## Reporting a vulnerability/);
    const changelog = readFileSync(repoPath("CHANGELOG.md"), "utf8");
    expect(changelog).toMatch(/keepachangelog\.com/);
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
  });
});
