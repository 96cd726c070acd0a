import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { contractFixture, RUNNERS, type RunningApi, startCompiledApi, TOKENS } from "@community/fixtures/testing";
import { Webhook } from "standardwebhooks";

const PACKAGE_DIR = path.resolve(__dirname, "..");
const WORKSPACE_ROOT = path.resolve(PACKAGE_DIR, "../..");
const TSC = path.join(WORKSPACE_ROOT, "node_modules/typescript/bin/tsc");
const fixture = contractFixture();
const RUNNER_EVENTS = fixture.events.filter((e) => e.team_id === RUNNERS).length;

const exec = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: process.env });

/**
 * What a consumer does with the same code under both module systems: walk, check an error's
 * class, and verify a webhook notice (signed by standardwebhooks in the test) with Web Crypto.
 */
const consumerCode = (load: string) => `${load}
const client = createClient({ baseUrl: process.env.API_URL, token: process.env.API_TOKEN });
const ids = [];
for await (const event of client.events.all({ perPage: 5 })) ids.push(event.id);
const refused = await createClient({ baseUrl: process.env.API_URL, token: "not-a-token" }).listGuides().catch((e) => e);
const notice = JSON.parse(process.env.NOTICE);
const verified = await verifyWebhookNotice({ secret: notice.secret, headers: notice.headers, body: notice.body });
const forged = await verifyWebhookNotice({ secret: notice.secret, headers: notice.headers, body: notice.body + " " }).catch((e) => e);
console.log(JSON.stringify({
  ids,
  unauthorized: refused instanceof UnauthorizedError,
  kind: refused.kind,
  notice: verified.type,
  forged: forged instanceof WebhookVerificationError && forged.kind,
}));
`;

function signedNotice() {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const body = JSON.stringify({
    type: "guides.changed",
    timestamp: "2026-11-30T12:00:00Z",
    data: { list: "guides", changes: "/v1/me/community/team/guides/changes" },
  });
  const at = new Date();
  const headers = {
    "webhook-id": "msg_package",
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign("msg_package", at, body),
  };
  return JSON.stringify({ secret, headers, body });
}

const typedConsumer = `import { createClient, type Event, type EventFilters, type LiveSyncResult, type SyncStore, UnexpectedResponseError, verifyWebhookNotice, type WebhookNotice } from "@community/client";
const client = createClient({ baseUrl: "http://localhost:3000", token: "t" });
const filters: EventFilters = { status: ["canceled"], scheduledFrom: new Date() };
export async function names(): Promise<string[]> {
  const names: string[] = [];
  for await (const event of client.events.all({ filters })) names.push((event satisfies Event).name);
  return names;
}
export const isUnexpected = (error: unknown): boolean => error instanceof UnexpectedResponseError;
export async function live(store: SyncStore<Event>, signal: AbortSignal): Promise<string | undefined> {
  const result: LiveSyncResult = await client.events.sync(store, { live: true, signal, wait: 30 });
  return result.token;
}
export async function listOf(body: string, headers: Record<string, string>): Promise<WebhookNotice["data"]["list"]> {
  return (await verifyWebhookNotice({ secret: "whsec_c2VjcmV0", headers, body })).data.list;
}
`;

describe("@community/client as a package installed outside the workspace", () => {
  let scratch: string;
  let running: RunningApi;
  let manifest: Record<string, unknown>;

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), "community-client-consumer-"));
    exec("pnpm", ["run", "build"], PACKAGE_DIR);
    exec("pnpm", ["pack", "--pack-destination", scratch], PACKAGE_DIR);
    const tarball = readdirSync(scratch).find((name) => name.endsWith(".tgz"));
    if (tarball === undefined) throw new Error(`pnpm pack wrote no tarball into ${scratch}`);
    writeFileSync(path.join(scratch, "package.json"), JSON.stringify({ name: "consumer", private: true }));
    // Offline: the package has no registry dependency, so nothing but the tarball is needed.
    exec("npm", ["install", "--offline", "--no-audit", "--no-fund", `./${tarball}`], scratch);
    manifest = JSON.parse(
      exec(process.execPath, ["-p", "JSON.stringify(require('@community/client/package.json'))"], scratch),
    ) as Record<string, unknown>;
    running = await startCompiledApi("client_package", fixture);
  }, 180_000);

  afterAll(async () => {
    await running?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("ships only the builds and the manifest, with no runtime dependency", () => {
    const files = exec("tar", ["-tzf", readdirSync(scratch).find((n) => n.endsWith(".tgz")) ?? ""], scratch)
      .trim()
      .split("\n");
    expect(files.filter((file) => !/^package\/dist\/(cjs|esm)\/[a-z-]+\.(js|d\.ts)$/.test(file)).sort()).toEqual([
      "package/LICENSE",
      "package/dist/esm/package.json",
      "package/package.json",
    ]);
    expect(files).toContain("package/dist/cjs/index.js");
    expect(files).toContain("package/dist/esm/index.d.ts");
    expect(manifest).toMatchObject({ license: "Apache-2.0", engines: { node: ">=22.12.0" } });
    expect(manifest.dependencies).toBeUndefined();
    expect(JSON.stringify(manifest)).not.toContain("workspace:");
    expect(readdirSync(path.join(scratch, "node_modules")).filter((name) => !name.startsWith("."))).toEqual([
      "@community",
    ]);
  });

  it.each([
    [
      "require (CommonJS)",
      "walk.cjs",
      'const { createClient, UnauthorizedError, verifyWebhookNotice, WebhookVerificationError } = require("@community/client");\n(async () => {',
      "})();",
    ],
    [
      "import (ES module)",
      "walk.mjs",
      'import { createClient, UnauthorizedError, verifyWebhookNotice, WebhookVerificationError } from "@community/client";',
      "",
    ],
  ])("walks the running api when loaded with %s", (_how, file, head, tail) => {
    writeFileSync(path.join(scratch, file), `${consumerCode(head)}${tail}\n`);
    const output = execFileSync(process.execPath, [file], {
      cwd: scratch,
      encoding: "utf8",
      env: { PATH: process.env.PATH, API_URL: running.baseUrl, API_TOKEN: TOKENS.runner, NOTICE: signedNotice() },
    });
    const result = JSON.parse(output) as { ids: string[]; unauthorized: boolean; kind: string };
    expect(result.ids).toHaveLength(RUNNER_EVENTS);
    expect(new Set(result.ids).size).toBe(RUNNER_EVENTS);
    expect(result).toMatchObject({
      unauthorized: true,
      kind: "unauthorized",
      notice: "guides.changed",
      forged: "bad-signature",
    });
  });

  it.each([
    ["nodenext", "nodenext", "consumer.mts"],
    ["nodenext", "nodenext", "consumer.cts"],
    ["esnext", "bundler", "consumer.ts"],
  ])(
    "type-checks a consumer under module %s, moduleResolution %s (%s), with the library checked too",
    (module, resolution, file) => {
      const dir = mkdtempSync(path.join(scratch, "types-"));
      writeFileSync(path.join(dir, file), typedConsumer);
      writeFileSync(
        path.join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            module,
            moduleResolution: resolution,
            target: "es2022",
            lib: ["es2023", "dom", "dom.asynciterable"],
            types: [],
            strict: true,
            skipLibCheck: false,
            noEmit: true,
          },
          files: [file],
        }),
      );
      // Resolves @community/client from the scratch project's node_modules, one folder up.
      const tsc = () => spawnSync(process.execPath, [TSC, "-p", dir], { cwd: dir, encoding: "utf8" });
      expect(tsc()).toMatchObject({ status: 0, stdout: "" });
      // The same check fails on a wrong use, so it did look at the package's types.
      writeFileSync(path.join(dir, file), `${typedConsumer}\nexport const wrong: number = createClient;\n`);
      const wrong = tsc();
      expect(wrong.status).not.toBe(0);
      expect(wrong.stdout).toMatch(
        /TS2322: Type '\(options: ClientOptions\) => CommunityClient' is not assignable to type 'number'/,
      );
    },
  );
});
