import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { EnvSchema, loadConfig } from "../../apps/api/src/config/config";
import { HealthController } from "../../apps/api/src/health/health.controller";
import { MetricsController } from "../../apps/api/src/metrics/metrics.controller";
import { defined, type PackageJson, readJson, repoPath } from "./docker-files";
import { type K8sObject, kustomizeBuild, podSpecOf, readYamlDocuments } from "./kustomize";

const ROOT = repoPath("deploy/kubernetes");
const SECRET = "community-team";
/** What the Secret holds (docs/deployment.md): the api's secret variables. */
const SECRET_KEYS = [
  "DATABASE_URL",
  "DATABASE_READ_URL",
  "DATABASE_LISTEN_URL",
  "METRICS_TOKEN",
  "REDIS_URL",
  "CURSOR_SECRET",
];

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(full);
    return /\.ya?ml$/.test(entry.name) ? [full] : [];
  });
}

const files = yamlFiles(ROOT);
const kustomizations = files.filter((file) => path.basename(file) === "kustomization.yaml");
const manifests = files.filter((file) => !kustomizations.includes(file));
/** Folders `kustomize build` can build (components are only parts of them). */
const buildable = kustomizations
  .filter((file) => (readYamlDocuments(file)[0] as { kind?: string }).kind === "Kustomization")
  .map((file) => path.relative(ROOT, path.dirname(file)))
  .sort();
const builds = new Map(buildable.map((dir) => [dir, kustomizeBuild(path.join(ROOT, dir))]));
const built = (dir: string): K8sObject[] => defined(builds.get(dir), `a kustomization in deploy/kubernetes/${dir}`);

/** Checks one object against the Kubernetes JSON schema shipped by kubernetes-models (offline). */
async function schemaErrors(object: K8sObject): Promise<string | undefined> {
  // apps/v1 + Deployment -> kubernetes-models/apps/v1/Deployment; v1 + Service -> kubernetes-models/v1/Service;
  // the Prometheus Operator's kinds come from their own models package.
  const models = object.apiVersion.startsWith("monitoring.coreos.com/")
    ? "@kubernetes-models/prometheus-operator"
    : "kubernetes-models";
  const specifier = `${models}/${object.apiVersion}/${object.kind}`;
  let Model: new (data: unknown) => { validate(): void };
  try {
    Model = (await import(specifier))[object.kind];
  } catch {
    return `${object.apiVersion} ${object.kind} is not a Kubernetes kind`;
  }
  try {
    new Model(object).validate();
    return undefined;
  } catch (error) {
    return `${object.kind}/${object.metadata?.name}: ${(error as Error).message}`;
  }
}

const one = (objects: K8sObject[], kind: string): K8sObject => {
  const found = objects.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0] as K8sObject;
};

interface Probe {
  httpGet?: { path?: string; port?: number | string };
  periodSeconds?: number;
  failureThreshold?: number;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string };
  };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: EnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command?: string[] }; sleep?: { seconds: number } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
  };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface Pod {
  containers: Container[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  terminationGracePeriodSeconds?: number;
  topologySpreadConstraints?: Array<{ topologyKey: string; labelSelector?: { matchLabels?: Record<string, string> } }>;
  volumes?: Array<{ name: string; emptyDir?: object }>;
  restartPolicy?: string;
}

const podOf = (object: K8sObject): Pod => defined(podSpecOf(object), `${object.kind} pod template`) as unknown as Pod;
const podLabels = (object: K8sObject): Record<string, string> =>
  (object.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>): boolean =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels[key] === value);

const api = (objects: K8sObject[]): { deployment: K8sObject; pod: Pod; container: Container } => {
  const deployment = one(objects, "Deployment");
  const pod = podOf(deployment);
  expect(pod.containers.map((c) => c.name)).toEqual(["api"]);
  return { deployment, pod, container: defined(pod.containers[0], "api container") };
};

/** The environment a container gets: its ConfigMaps (envFrom) and its env entries. */
function environment(objects: K8sObject[], container: Container): Map<string, EnvVar> {
  const out = new Map<string, EnvVar>();
  for (const from of container.envFrom ?? []) {
    const name = defined(from.configMapRef?.name, "envFrom of a ConfigMap (Secrets are referenced key by key)");
    const configMap = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === name);
    const data = defined(configMap?.data as Record<string, string> | undefined, `ConfigMap ${name} in the build`);
    for (const [key, value] of Object.entries(data)) out.set(key, { name: key, value });
  }
  for (const variable of container.env ?? []) out.set(variable.name, variable);
  return out;
}

/** Route paths of a Nest controller method, as Nest maps them (controller path + method path). */
function routeOf(controller: object, method: (...args: never[]) => unknown): string {
  const metadata = Reflect as unknown as { getMetadata(key: string, target: object): string | undefined };
  return `/${metadata.getMetadata("path", controller)}/${metadata.getMetadata("path", method)}`;
}

/** Seconds the api may take to close its connections, Redis and the pool after its timeout (5 s each, at once). */
const CLOSING_MARGIN_SECONDS = 5;

/**
 * The pod's shutdown budget (docs/operations.md, "Graceful shutdown"): preStop sleep +
 * SHUTDOWN_DRAIN_DELAY_MS + SHUTDOWN_TIMEOUT_MS + the closing margin, against
 * terminationGracePeriodSeconds; the variables as the api reads them (its defaults included).
 */
function shutdownBudget(objects: K8sObject[]) {
  const { pod, container } = api(objects);
  const preStop = container.lifecycle?.preStop;
  const command = preStop?.exec?.command ?? [];
  const preStopSeconds = preStop?.sleep?.seconds ?? (command[0] === "sleep" ? Number(command[1]) : 0);
  const env = environment(objects, container);
  const config = loadConfig({
    SHUTDOWN_TIMEOUT_MS: env.get("SHUTDOWN_TIMEOUT_MS")?.value,
    SHUTDOWN_DRAIN_DELAY_MS: env.get("SHUTDOWN_DRAIN_DELAY_MS")?.value,
  });
  const drainSeconds = config.shutdownDrainDelayMs / 1000;
  return {
    preStopSeconds,
    drainSeconds,
    totalSeconds: preStopSeconds + drainSeconds + config.shutdownTimeoutMs / 1000 + CLOSING_MARGIN_SECONDS,
    graceSeconds: pod.terminationGracePeriodSeconds ?? 30,
  };
}

/** A copy of a build with one ConfigMap value changed. */
function withConfig(objects: K8sObject[], key: string, value: string): K8sObject[] {
  return structuredClone(objects).map((o) =>
    o.kind === "ConfigMap" ? { ...o, data: { ...(o.data as Record<string, string>), [key]: value } } : o,
  );
}

const OVERLAYS = ["overlays/production", "overlays/production-redis", "overlays/production-extras"];
const APP_BUILDS = ["base", ...OVERLAYS];

describe("deploy/kubernetes", () => {
  it("has the base, the migration Job and the production overlays, each buildable", () => {
    expect(buildable).toEqual(
      expect.arrayContaining(["base", "migrate", "overlays/production", "overlays/production/migrate", ...OVERLAYS]),
    );
    for (const dir of buildable) expect({ dir, objects: built(dir).length > 0 }).toEqual({ dir, objects: true });
  });

  it("validates every manifest file against the Kubernetes schemas", async () => {
    const errors: string[] = [];
    for (const file of manifests) {
      for (const object of readYamlDocuments(file) as K8sObject[]) {
        const error = await schemaErrors(object);
        if (error) errors.push(`${path.relative(ROOT, file)}: ${error}`);
      }
    }
    expect(manifests.length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });

  it("validates what every kustomization builds against the Kubernetes schemas", async () => {
    const errors: string[] = [];
    for (const [dir, objects] of builds) {
      for (const object of objects) {
        const error = await schemaErrors(object);
        if (error) errors.push(`${dir}: ${error}`);
      }
    }
    expect(errors).toEqual([]);
  });

  it("rejects an invalid object, so that the schema check can fail", async () => {
    const deployment = structuredClone(one(built("base"), "Deployment"));
    (deployment.spec as { replicas: unknown }).replicas = "two";
    expect(await schemaErrors(deployment)).toMatch(/replicas must be integer/);
    expect(await schemaErrors({ ...deployment, kind: "Deploymnt" })).toMatch(/not a Kubernetes kind/);
  });

  it("gives every object of an overlay the overlay's namespace, and every container the overlay's image", () => {
    for (const dir of [...OVERLAYS, "overlays/production/migrate"]) {
      const objects = built(dir);
      expect(new Set(objects.map((o) => o.metadata.namespace))).toEqual(new Set(["community-team"]));
      for (const object of objects.filter(podSpecOf)) {
        for (const container of podOf(object).containers) {
          expect(container.image).toMatch(/^registry\.example\.com\/community-team[:@]/);
        }
      }
    }
  });

  describe.each(APP_BUILDS)("the api in %s", (dir) => {
    const objects = built(dir);

    it("listens on the container port named http, which is the api's PORT", () => {
      const { container } = api(objects);
      const port = defined(
        container.ports?.find((p) => p.name === "http"),
        "a port named http",
      ).containerPort;
      const env = Object.fromEntries([...environment(objects, container)].map(([key, v]) => [key, v.value]));
      expect(port).toBe(loadConfig(env).port);
      const service = one(objects, "Service");
      const ports = (service.spec as { ports: Array<{ targetPort: string | number }> }).ports;
      expect(ports.map((p) => p.targetPort)).toEqual(["http"]);
    });

    it("probes readiness on /health/ready, liveness and start-up on /health/live, routes of the api", () => {
      const { container } = api(objects);
      const health = HealthController.prototype;
      expect(container.readinessProbe?.httpGet).toEqual({
        path: routeOf(HealthController, health.ready),
        port: "http",
      });
      expect(container.livenessProbe?.httpGet).toEqual({ path: routeOf(HealthController, health.live), port: "http" });
      expect(container.startupProbe?.httpGet).toEqual({ path: "/health/live", port: "http" });
      expect(routeOf(HealthController, health.ready)).toBe("/health/ready");
      expect(routeOf(HealthController, health.live)).toBe("/health/live");
      // Start-up may take a minute (connect, check migrations) before liveness restarts the pod.
      const startup = defined(container.startupProbe, "startupProbe");
      expect((startup.periodSeconds ?? 10) * (startup.failureThreshold ?? 3)).toBeGreaterThanOrEqual(60);
    });

    it("sets only variables of the api's configuration schema, with values it accepts", () => {
      const { container } = api(objects);
      const env = environment(objects, container);
      const known = Object.keys(EnvSchema.shape);
      expect([...env.keys()].filter((name) => !known.includes(name))).toEqual([]);
      // The literal values pass the api's own check; secrets get stand-ins of the right form.
      const values: Record<string, string> = {};
      for (const [name, variable] of env) {
        values[name] =
          variable.value ??
          {
            DATABASE_URL: "postgresql://u:p@db:5432/app",
            DATABASE_READ_URL: "postgresql://u:p@db-replica:5432/app",
            DATABASE_LISTEN_URL: "postgresql://u:p@db-primary:5432/app",
            METRICS_TOKEN: "0123456789abcdef",
            REDIS_URL: "redis://r:6379",
            CURSOR_SECRET: "0123456789abcdef0123456789abcdef",
          }[name] ??
          "";
      }
      expect(() => loadConfig(values)).not.toThrow();
    });

    it("takes DATABASE_URL (required) and the other secrets from the Secret, and ConfigMaps it defines", () => {
      const { container } = api(objects);
      const fromSecrets = (container.env ?? []).filter((v) => v.valueFrom?.secretKeyRef);
      for (const variable of fromSecrets) {
        expect(variable.valueFrom?.secretKeyRef).toMatchObject({ name: SECRET, key: variable.name });
        expect(SECRET_KEYS).toContain(variable.name);
      }
      const database = (container.env ?? []).find((v) => v.name === "DATABASE_URL");
      expect(database?.valueFrom?.secretKeyRef).toEqual({ name: SECRET, key: "DATABASE_URL" });
      // Only secrets come from the Secret: nothing secret in the ConfigMap.
      const configured = [...environment(objects, container).values()].filter((v) => v.value !== undefined);
      expect(configured.map((v) => v.name).filter((name) => SECRET_KEYS.includes(name))).toEqual([]);
    });

    it("runs as a non-root user on a read-only root file system, writing only to an emptyDir at /tmp", () => {
      const { pod, container } = api(objects);
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(container.securityContext).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      });
      const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
      for (const mount of container.volumeMounts ?? []) expect(volumes.get(mount.name)?.emptyDir).toBeDefined();
      expect(container.volumeMounts?.map((m) => m.mountPath)).toEqual(["/tmp"]);
    });

    it("requests resources, and limits memory above the image's heap budget", () => {
      const { container } = api(objects);
      expect(container.resources?.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
      const mebibytes = (quantity: string | undefined): number => {
        const match = /^(\d+)(Mi|Gi)$/.exec(defined(quantity, "a memory quantity"));
        return Number(match?.[1]) * (match?.[2] === "Gi" ? 1024 : 1);
      };
      // The image runs node --max-old-space-size=192: the limit leaves room for the rest of the process.
      expect(mebibytes(container.resources?.limits?.memory)).toBeGreaterThan(192 + 64);
      expect(mebibytes(container.resources?.requests?.memory)).toBeLessThanOrEqual(
        mebibytes(container.resources?.limits?.memory),
      );
      // The request covers the highest RSS the README publishes, with 25 % headroom.
      const measured = /at most (\d+) MB under the full benchmark/.exec(readFileSync(repoPath("README.md"), "utf8"));
      const peak = Number(defined(measured?.[1], "README.md's measured RSS peak"));
      expect(mebibytes(container.resources?.requests?.memory)).toBeGreaterThanOrEqual(Math.ceil(peak * 1.25));
    });

    it("fits the shutdown budget in the grace period, and drains once (preStop, not the app as well)", () => {
      const budget = shutdownBudget(objects);
      expect(budget.preStopSeconds).toBeGreaterThan(0);
      expect(budget.drainSeconds).toBe(0);
      expect(budget.totalSeconds).toBeLessThanOrEqual(budget.graceSeconds);
    });

    it("spreads replicas over zones and nodes, and the Service, HPA and PDB point at the api's pods", () => {
      const { deployment, pod } = api(objects);
      const labels = podLabels(deployment);
      const selector = (deployment.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      expect(selects(selector, labels)).toBe(true);
      expect(pod.topologySpreadConstraints?.map((c) => c.topologyKey).sort()).toEqual([
        "kubernetes.io/hostname",
        "topology.kubernetes.io/zone",
      ]);
      for (const constraint of pod.topologySpreadConstraints ?? []) {
        expect(selects(constraint.labelSelector?.matchLabels, labels)).toBe(true);
      }
      expect(selects((one(objects, "Service").spec as { selector: Record<string, string> }).selector, labels)).toBe(
        true,
      );
      const hpa = one(objects, "HorizontalPodAutoscaler").spec as {
        scaleTargetRef: { kind: string; name: string };
        minReplicas: number;
        maxReplicas: number;
      };
      expect(hpa.scaleTargetRef).toMatchObject({ kind: "Deployment", name: deployment.metadata.name });
      expect(hpa.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa.maxReplicas).toBeGreaterThan(hpa.minReplicas);
      const pdb = one(objects, "PodDisruptionBudget").spec as {
        maxUnavailable: number;
        selector: { matchLabels: Record<string, string> };
      };
      expect(selects(pdb.selector.matchLabels, labels)).toBe(true);
      // A drain never takes every replica at once.
      expect(pdb.maxUnavailable).toBeLessThan(hpa.minReplicas);
      expect(podOf(deployment).containers[0]?.name).toBe("api");
    });
  });

  describe("the optional parts in overlays/production-extras", () => {
    const objects = built("overlays/production-extras");
    const { deployment, container } = api(objects);
    const labels = podLabels(deployment);
    const service = one(objects, "Service");
    const servicePorts = (service.spec as { ports: Array<{ name: string; port: number }> }).ports;

    it("scrapes /metrics of the api's Service with the METRICS_TOKEN of the Secret", () => {
      const monitor = one(objects, "ServiceMonitor").spec as {
        selector: { matchLabels: Record<string, string> };
        endpoints: Array<{ port: string; path: string; authorization?: { type: string; credentials: object } }>;
      };
      expect(selects(monitor.selector.matchLabels, service.metadata.labels ?? {})).toBe(true);
      expect(monitor.endpoints).toHaveLength(1);
      const [endpoint] = monitor.endpoints;
      expect(servicePorts.map((p) => p.name)).toContain(endpoint?.port);
      expect(endpoint?.path).toBe(`/${Reflect.getMetadata("path", MetricsController)}`);
      expect(endpoint?.authorization).toEqual({
        type: "Bearer",
        credentials: { name: SECRET, key: "METRICS_TOKEN" },
      });
      const token = (container.env ?? []).find((v) => v.name === "METRICS_TOKEN");
      expect(token?.valueFrom?.secretKeyRef).toMatchObject({ name: SECRET, key: "METRICS_TOKEN" });
    });

    it("lets traffic reach the api pods on their http port only", () => {
      const policy = one(objects, "NetworkPolicy").spec as {
        podSelector: { matchLabels: Record<string, string> };
        policyTypes: string[];
        ingress: Array<{ ports: Array<{ port: string | number }> }>;
      };
      expect(selects(policy.podSelector.matchLabels, labels)).toBe(true);
      expect(policy.policyTypes).toEqual(["Ingress", "Egress"]);
      const ports = policy.ingress.flatMap((rule) => rule.ports.map((p) => p.port));
      expect(ports).toEqual(["http"]);
      expect(container.ports?.map((p) => p.name)).toContain("http");
    });

    it("routes the host of PUBLIC_URL to the api's Service", () => {
      const ingress = one(objects, "Ingress").spec as {
        tls: Array<{ hosts: string[] }>;
        rules: Array<{
          host: string;
          http: { paths: Array<{ path: string; backend: { service: { name: string; port: { name: string } } } }> };
        }>;
      };
      const publicUrl = new URL(defined(environment(objects, container).get("PUBLIC_URL")?.value, "PUBLIC_URL"));
      expect(ingress.rules.map((r) => r.host)).toEqual([publicUrl.hostname]);
      expect(ingress.tls.flatMap((t) => t.hosts)).toEqual([publicUrl.hostname]);
      for (const rule of ingress.rules) {
        for (const route of rule.http.paths) {
          expect(route.backend.service.name).toBe(service.metadata.name);
          expect(servicePorts.map((p) => p.name)).toContain(route.backend.service.port.name);
        }
      }
    });
  });

  it("adds REDIS_URL from the Secret in the Redis overlay only", () => {
    const names = (dir: string) => [...environment(built(dir), api(built(dir)).container).keys()].sort();
    expect(names("overlays/production")).not.toContain("REDIS_URL");
    expect(names("overlays/production-redis")).toEqual([...names("overlays/production"), "REDIS_URL"].sort());
    const redis = api(built("overlays/production-redis")).container.env?.find((v) => v.name === "REDIS_URL");
    expect(redis?.valueFrom?.secretKeyRef).toEqual({ name: SECRET, key: "REDIS_URL" });
  });

  describe.each(["migrate", "overlays/production/migrate"])("the migration Job in %s", (dir) => {
    const objects = built(dir);

    it("runs the root db:migrate script once, with DATABASE_URL from the Secret only", () => {
      expect(objects.map((o) => o.kind)).toEqual(["Job"]);
      const pod = podOf(one(objects, "Job"));
      expect(pod.restartPolicy).toBe("Never");
      const [container, ...others] = pod.containers;
      expect(others).toEqual([]);
      expect(container?.command).toEqual(["pnpm", "db:migrate"]);
      expect(readJson<PackageJson>("package.json").scripts?.["db:migrate"]).toBeDefined();
      expect(container?.env).toEqual([
        { name: "DATABASE_URL", valueFrom: { secretKeyRef: { name: SECRET, key: "DATABASE_URL" } } },
      ]);
      expect(container?.envFrom).toBeUndefined();
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(container?.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
    });
  });

  it("migrates with the image the overlay's api runs, pulled the same way", () => {
    const container = (objects: K8sObject[]) => podOf(objects.find(podSpecOf) as K8sObject).containers[0];
    const image = (objects: K8sObject[]) => container(objects)?.image;
    const policy = (objects: K8sObject[]) => (container(objects) as { imagePullPolicy?: string }).imagePullPolicy;
    expect(image(built("overlays/production/migrate"))).toBe(image(built("overlays/production")));
    expect(image(built("migrate"))).toBe(image(built("base")));
    expect(policy(built("overlays/production/migrate"))).toBe(policy(built("overlays/production")));
    expect(policy(built("base"))).toBe("IfNotPresent");
  });

  it("pins the production image by digest, never by a bare tag", () => {
    for (const dir of [...OVERLAYS, "overlays/production/migrate"]) {
      for (const object of built(dir).filter(podSpecOf)) {
        for (const container of podOf(object).containers) {
          expect({ dir, image: container.image }).toEqual({
            dir,
            image: expect.stringMatching(/^registry\.example\.com\/community-team@sha256:[0-9a-f]{64}$/),
          });
        }
      }
    }
  });

  it("refuses a shutdown budget over the grace period, and a drain in the app on top of preStop", () => {
    const base = built("base");
    expect(shutdownBudget(base).totalSeconds).toBeLessThanOrEqual(shutdownBudget(base).graceSeconds);
    // 5 s preStop + 24 s + 5 s closing: SIGKILLed before the api is done.
    const late = shutdownBudget(withConfig(base, "SHUTDOWN_TIMEOUT_MS", "24000"));
    expect(late.totalSeconds).toBeGreaterThan(late.graceSeconds);
    // The api's default drain (5 s) after the preStop sleep would drain twice.
    const unset = withConfig(base, "SHUTDOWN_DRAIN_DELAY_MS", "");
    expect(shutdownBudget(unset).drainSeconds).toBe(5);
  });
});

describe("kustomizeBuild", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "kustomize-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => writeFileSync(path.join(dir, name), text);
  const resource = "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }\ndata: { A: a }\n";

  it("fails on a kustomization field it does not implement, instead of ignoring it", () => {
    write("c.yaml", resource);
    write(
      "kustomization.yaml",
      "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [c.yaml]\nnamePrefix: x-\n",
    );
    expect(() => kustomizeBuild(dir)).toThrow(/does not implement: namePrefix/);
  });

  it("applies JSON 6902 patches and fails when a test operation does not hold", () => {
    write("c.yaml", resource);
    const patch = (value: string) =>
      `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [c.yaml]\npatches:\n  - target: { kind: ConfigMap, name: c }\n    patch: |-\n      - { op: test, path: /data/A, value: ${value} }\n      - { op: add, path: /data/B, value: b }\n`;
    write("kustomization.yaml", patch("a"));
    expect(kustomizeBuild(dir)[0]?.data).toEqual({ A: "a", B: "b" });
    write("kustomization.yaml", patch("z"));
    expect(() => kustomizeBuild(dir)).toThrow(/test failed/);
  });
});
