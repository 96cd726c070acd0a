import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { createEmptyTestDatabase, type TestDatabase } from "@community/db/testing";
import { DEMO_TOKENS, demoFixture } from "@community/fixtures";
import { ApiProcess } from "@community/fixtures/testing";
import { parse } from "yaml";
import { defined, imageCommand, REPO_ROOT, repoPath } from "./docker-files";

/**
 * What the image and docker-compose.yml run, on the built workspace (`pnpm test` builds first):
 * the migrate and seed services' commands, then the Dockerfile's CMD with its NODE_ENV, against a
 * database of this suite's own.
 */
const compose = parse(readFileSync(repoPath("docker-compose.yml"), "utf8")) as {
  services: Record<string, { command: string[] }>;
};
const cmd = imageCommand();

const run = promisify(execFile);
const command = (service: string, env: NodeJS.ProcessEnv) => {
  const [file, ...args] = defined(compose.services[service], `service ${service}`).command;
  return run(defined(file, `${service} command`), args, { cwd: REPO_ROOT, env: { ...process.env, ...env } });
};

describe("production layout: migrate, seed the demo, run the image's CMD", () => {
  let testDb: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let api: ApiProcess | undefined;

  beforeAll(async () => {
    testDb = await createEmptyTestDatabase("production_smoke");
    env = {
      DATABASE_URL: testDb.url,
      NODE_ENV: "production",
      CURSOR_SECRET: "production-smoke-cursor-secret-0123456789",
    };
  });

  afterAll(async () => {
    api?.kill("SIGKILL");
    await testDb?.drop();
  });

  it("applies the migrations to an empty database with the migrate service's command", async () => {
    expect((await command("migrate", env)).stdout).toContain("All migrations have been successfully applied.");
  });

  it("loads the demo data with the seed service's command", async () => {
    expect((await command("seed", env)).stdout).toContain("Loaded the demo data");
  });

  it("serves both lists to a demo token from the CMD, and exits 0 on SIGTERM", async () => {
    expect(cmd[0]).toBe("node");
    api = new ApiProcess({ ...env, HOST: "127.0.0.1", PORT: "0" }, cmd.slice(1));
    const base = `http://127.0.0.1:${await api.listening()}/v1/me/community/team`;
    const demo = demoFixture();
    for (const list of ["events", "guides"] as const) {
      const runners = demo[list].filter((item) => item.team_id === "team_runners").map((item) => item.id);
      const response = await fetch(`${base}/${list}`, {
        headers: { Authorization: `Bearer ${DEMO_TOKENS.runners.token}` },
      });
      expect({ list, status: response.status }).toEqual({ list, status: 200 });
      const items = ((await response.json()) as { guides: Array<{ id: string }> }).guides;
      expect(items.length).toBeGreaterThan(0);
      expect(runners).toEqual(expect.arrayContaining(items.map((item) => item.id)));
    }
    api.kill("SIGTERM");
    expect(await api.exited).toBe(0);
  });
});
