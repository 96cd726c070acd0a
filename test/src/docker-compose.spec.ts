import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseDocument } from "yaml";
import {
  defined,
  healthCheckExitCode,
  type PackageJson,
  REPO_ROOT,
  readDockerfile,
  readJson,
  repoPath,
} from "./docker-files";

interface Dependency {
  condition?: string;
}

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string; target?: string };
  command?: string | string[];
  environment?: Record<string, string> | string[];
  depends_on?: Record<string, Dependency> | string[];
  healthcheck?: { test?: string | string[]; interval?: string; timeout?: string; start_period?: string };
  stop_grace_period?: string;
  volumes?: Array<string | { type?: string; source?: string; target?: string }>;
  ports?: Array<string | number | { target?: number; published?: string | number }>;
  profiles?: string[];
  restart?: string;
}

interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const COMPOSE_FILE = "docker-compose.yml";
const text = readFileSync(repoPath(COMPOSE_FILE), "utf8");
// merge: Compose honours YAML 1.1 merge keys (`<<: *app`), so the test reads them the same way.
const document = parseDocument(text, { merge: true });
const compose = document.toJS() as ComposeFile;
const service = (name: string): Service => {
  const found = compose.services?.[name];
  if (!found) throw new Error(`${COMPOSE_FILE} has no service ${name}`);
  return found;
};

const env = (s: Service): Record<string, string> =>
  Array.isArray(s.environment)
    ? Object.fromEntries(s.environment.map((entry) => [entry.split("=")[0], entry.slice(entry.indexOf("=") + 1)]))
    : { ...s.environment };

const condition = (s: Service, on: string): string | undefined =>
  Array.isArray(s.depends_on) ? undefined : s.depends_on?.[on]?.condition;

const words = (command: string | string[] | undefined): string[] =>
  Array.isArray(command) ? command : (command?.split(/\s+/) ?? []);

const APP_SERVICES = ["migrate", "seed", "api"];

describe("docker-compose.yml", () => {
  it("parses cleanly and, where the Compose CLI exists, passes `docker compose config`", () => {
    expect(document.errors.map(String)).toEqual([]);
    expect(document.warnings.map(String)).toEqual([]);
    // `docker compose` needs the Compose plugin, not an engine; where it is missing (as on this
    // project's machines) the structural checks of this file are what validates it.
    const plugin = spawnSync("docker", ["compose", "version"], { encoding: "utf8" });
    if (plugin.status === 0) {
      for (const profile of [[], ["--profile", "demo"]]) {
        const config = spawnSync("docker", ["compose", "-f", COMPOSE_FILE, ...profile, "config", "-q"], {
          cwd: REPO_ROOT,
          encoding: "utf8",
        });
        expect({ status: config.status, stderr: config.stderr }).toEqual({ status: 0, stderr: "" });
      }
    }
  });

  it("defines the postgres, redis, migrate, seed and api services", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["api", "migrate", "postgres", "redis", "seed"]);
  });

  it("keeps postgres' data in a named volume and checks its health with pg_isready", () => {
    const postgres = service("postgres");
    expect(postgres.image).toMatch(/^postgres:16(-alpine)?$/);
    const mounts = (postgres.volumes ?? []).map((v) => (typeof v === "string" ? v.split(":") : [v.source, v.target]));
    const data = mounts.find(([, target]) => target === "/var/lib/postgresql/data");
    expect(data).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(defined(data, "postgres data volume")[0]);
    expect(words(postgres.healthcheck?.test as string | string[]).join(" ")).toContain("pg_isready");
    expect(Object.keys(env(postgres)).sort()).toEqual(["POSTGRES_DB", "POSTGRES_PASSWORD", "POSTGRES_USER"]);
  });

  it("runs the migrations once, after postgres is healthy, with the root db:migrate script", () => {
    const migrate = service("migrate");
    expect(condition(migrate, "postgres")).toBe("service_healthy");
    expect(migrate.restart).toBe("no");
    expect(words(migrate.command)).toEqual(["pnpm", "db:migrate"]);
    expect(readJson<PackageJson>("package.json").scripts?.["db:migrate"]).toBeDefined();
  });

  it("starts the api after the migrations succeeded and postgres is healthy, and keeps it running", () => {
    const api = service("api");
    expect(condition(api, "migrate")).toBe("service_completed_successfully");
    expect(condition(api, "postgres")).toBe("service_healthy");
    expect(api.restart).toBe("unless-stopped");
  });

  it("loads the demo data only under the demo profile, after the migrations, with the seed CLI", () => {
    const seed = service("seed");
    expect(seed.profiles).toEqual(["demo"]);
    expect(condition(seed, "migrate")).toBe("service_completed_successfully");
    const seedBin = readJson<PackageJson>("apps/seed/package.json").bin?.["community-seed"];
    expect(words(seed.command)).toEqual(["node", path.posix.join("apps/seed", seedBin ?? "(no bin)"), "--demo"]);
    // Every other service runs without a profile, so a plain `docker compose up` starts them.
    for (const name of ["postgres", "redis", "migrate", "api"]) expect(service(name).profiles).toBeUndefined();
  });

  it("gives api, migrate and seed one DATABASE_URL, defined once, that reaches the postgres service", () => {
    const urls = APP_SERVICES.map((name) => env(service(name)).DATABASE_URL);
    expect(new Set(urls).size).toBe(1);
    expect(text.match(/postgres(ql)?:\/\//g)).toHaveLength(1);
    const url = new URL(defined(urls[0], "DATABASE_URL"));
    const postgres = env(service("postgres"));
    expect({
      protocol: url.protocol,
      host: url.hostname,
      port: url.port || "5432",
      user: url.username,
      password: url.password,
      database: url.pathname.slice(1),
    }).toEqual({
      protocol: "postgresql:",
      host: "postgres",
      port: "5432",
      user: postgres.POSTGRES_USER,
      password: postgres.POSTGRES_PASSWORD,
      database: postgres.POSTGRES_DB,
    });
  });

  it("publishes the api on port 3000, where the image listens", () => {
    const api = service("api");
    expect(api.ports?.map(String)).toContain("3000:3000");
    expect(env(api).PORT ?? "3000").toBe("3000");
    const runtime = defined(readDockerfile().at(-1), "a stage");
    expect(runtime.instructions.filter((i) => i.keyword === "EXPOSE").map((i) => i.args)).toContain("3000");
  });

  it("builds every image from a Dockerfile that exists, at a stage it defines", () => {
    const builds = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
    expect(builds.map(([name]) => name).sort()).toEqual([...APP_SERVICES].sort());
    for (const [name, s] of builds) {
      const build = typeof s.build === "string" ? { context: s.build } : defined(s.build, "build");
      const context = repoPath(build.context ?? ".");
      expect({ name, context: existsSync(context) && statSync(context).isDirectory() }).toEqual({
        name,
        context: true,
      });
      const dockerfile = path.join(context, build.dockerfile ?? "Dockerfile");
      expect({ name, dockerfile: existsSync(dockerfile) }).toEqual({ name, dockerfile: true });
      if (build.target) {
        const stages = readDockerfile(path.relative(REPO_ROOT, dockerfile)).map((stage) => stage.name);
        expect(stages).toContain(build.target);
      }
    }
    // One image for the three: migrations and seed match the api's code.
    expect(new Set(APP_SERVICES.map((name) => service(name).image)).size).toBe(1);
  });

  it("runs redis with a health check, and gives the api its REDIS_URL so replicas share rate limits", () => {
    const redis = service("redis");
    expect(redis.image).toMatch(/^redis:7(-alpine)?$/);
    expect(words(redis.healthcheck?.test as string | string[])).toEqual(["CMD", "redis-cli", "ping"]);
    const api = service("api");
    expect(condition(api, "redis")).toBe("service_healthy");
    const url = new URL(defined(env(api).REDIS_URL, "REDIS_URL"));
    expect({ protocol: url.protocol, host: url.hostname, port: url.port || "6379" }).toEqual({
      protocol: "redis:",
      host: "redis",
      port: "6379",
    });
  });

  it("checks the api's health with /health/ready through node (the image has no curl)", async () => {
    const test = service("api").healthcheck?.test;
    expect(Array.isArray(test)).toBe(true);
    const [kind, binary, flag, script] = test as string[];
    expect([kind, binary, flag]).toEqual(["CMD", "node", "-e"]);
    expect(script).toContain("http://127.0.0.1:3000/health/ready");
    // Run the one-liner against a stand-in server: exit 0 on 200, non-zero on 503 or no answer.
    const exitCodeFor = (status: number | undefined) =>
      healthCheckExitCode(status, (port) => ({ script: defined(script, "script").replace(":3000/", `:${port}/`) }));
    expect(await exitCodeFor(200)).toBe(0);
    expect(await exitCodeFor(503)).toBe(1);
    expect(await exitCodeFor(undefined)).toBe(1);
  });

  it("gives the api more time to stop than SHUTDOWN_TIMEOUT_MS's default, and docker's default grace", () => {
    const grace = defined(service("api").stop_grace_period, "stop_grace_period");
    expect(grace).toMatch(/^\d+s$/);
    expect(Number.parseInt(grace, 10) * 1000).toBeGreaterThan(10_000);
  });
});
