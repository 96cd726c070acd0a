import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { buildOpenApiDocument } from "../../apps/api/src/openapi/openapi-document";
import { readJson, repoPath, workspacePackageDirs } from "./docker-files";

describe("the project's licence", () => {
  it("ships the Apache License 2.0 text unchanged at the root", () => {
    // MD5 of https://www.apache.org/licenses/LICENSE-2.0.txt, the text every Apache-2.0 project ships.
    const md5 = createHash("md5")
      .update(readFileSync(repoPath("LICENSE")))
      .digest("hex");
    expect(md5).toBe("3b83ef96387f14655fc854ddc3c6bd57");
  });

  it("names Apache-2.0 (SPDX) in every package.json of the workspace", () => {
    const packages = ["", ...workspacePackageDirs()];
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
