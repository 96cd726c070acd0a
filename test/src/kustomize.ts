import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";

/**
 * The part of `kustomize build` that deploy/kubernetes uses, so that the overlays can be built and
 * checked where no kustomize binary exists: `resources` (files and kustomization folders),
 * `components`, `namespace`, `images` and `patches` with a target and an inline JSON 6902 patch.
 * Anything else in a kustomization fails the build, so these files cannot quietly rely on a feature
 * this reader would ignore.
 */

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  components?: string[];
  namespace?: string;
  images?: Array<{ name: string; newName?: string; newTag?: string; digest?: string }>;
  patches?: Array<{ target?: { kind?: string; name?: string }; patch?: string }>;
}

const SUPPORTED = new Set(["apiVersion", "kind", "resources", "components", "namespace", "images", "patches"]);
const KINDS: Record<string, string> = {
  "kustomize.config.k8s.io/v1beta1": "Kustomization",
  "kustomize.config.k8s.io/v1alpha1": "Component",
};

/** Every YAML document of a file, failing on any parse error or warning. */
export function readYamlDocuments(file: string): unknown[] {
  const documents = parseAllDocuments(readFileSync(file, "utf8"));
  const problems = documents.flatMap((document) => [...document.errors, ...document.warnings]).map(String);
  if (problems.length > 0) throw new Error(`${file}: ${problems.join("; ")}`);
  return documents.map((document) => document.toJS()).filter((value) => value !== null);
}

function readKustomization(dir: string, kind: "Kustomization" | "Component"): Kustomization {
  const file = path.join(dir, "kustomization.yaml");
  if (!existsSync(file)) throw new Error(`${dir}: no kustomization.yaml`);
  const [k, ...rest] = readYamlDocuments(file) as Kustomization[];
  if (!k || rest.length > 0) throw new Error(`${file}: expected exactly one document`);
  const unsupported = Object.keys(k).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length > 0)
    throw new Error(`${file}: fields this build does not implement: ${unsupported.join(", ")}`);
  if (KINDS[k.apiVersion ?? ""] !== kind || k.kind !== kind) {
    throw new Error(`${file}: expected a ${kind}, got ${k.apiVersion} ${k.kind}`);
  }
  return k;
}

/** The objects that `kustomize build dir` would print. */
export function kustomizeBuild(dir: string): K8sObject[] {
  return build(dir, "Kustomization");
}

function build(dir: string, kind: "Kustomization" | "Component"): K8sObject[] {
  const k = readKustomization(dir, kind);
  const objects: K8sObject[] = [];
  for (const entry of k.resources ?? []) {
    const target = path.resolve(dir, entry);
    if (statSync(target).isDirectory()) objects.push(...build(target, "Kustomization"));
    else objects.push(...(readYamlDocuments(target) as K8sObject[]));
  }
  for (const entry of k.components ?? []) {
    // A component adds its own resources, then transforms everything built so far.
    const componentDir = path.resolve(dir, entry);
    objects.push(...build(componentDir, "Component"));
    transform(objects, readKustomization(componentDir, "Component"), componentDir);
  }
  if (kind === "Kustomization") transform(objects, k, dir);
  return objects;
}

function transform(objects: K8sObject[], k: Kustomization, dir: string): void {
  for (const { target, patch } of k.patches ?? []) {
    if (!target || patch === undefined) throw new Error(`${dir}: only inline patches with a target are supported`);
    const operations = readYamlText(patch, dir) as PatchOperation[];
    const matches = objects.filter(
      (o) => (!target.kind || o.kind === target.kind) && (!target.name || o.metadata.name === target.name),
    );
    if (matches.length === 0) throw new Error(`${dir}: patch target ${JSON.stringify(target)} matches nothing`);
    for (const object of matches) for (const operation of operations) applyOperation(object, operation, dir);
  }
  if (k.namespace) {
    for (const object of objects) {
      if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = k.namespace;
    }
  }
  for (const image of k.images ?? []) {
    for (const container of containersOf(objects)) {
      const { name, rest } = splitImage(container.image);
      if (name !== image.name) continue;
      const suffix = image.digest ? `@${image.digest}` : image.newTag ? `:${image.newTag}` : rest;
      container.image = `${image.newName ?? name}${suffix}`;
    }
  }
}

const CLUSTER_SCOPED = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding", "PriorityClass", "StorageClass"]);

function readYamlText(text: string, where: string): unknown {
  const documents = parseAllDocuments(text);
  const problems = documents.flatMap((document) => [...document.errors, ...document.warnings]).map(String);
  if (problems.length > 0 || documents.length !== 1) throw new Error(`${where}: bad patch: ${problems.join("; ")}`);
  return documents[0]?.toJS();
}

/** Containers (and init containers) of every pod template: Deployments, Jobs, and so on. */
export function containersOf(objects: K8sObject[]): Array<{ name: string; image: string; [key: string]: unknown }> {
  return objects.flatMap((object) => {
    const spec = podSpecOf(object);
    return spec ? [...(spec.initContainers ?? []), ...spec.containers] : [];
  });
}

export interface PodSpec {
  containers: Array<{ name: string; image: string; [key: string]: unknown }>;
  initContainers?: Array<{ name: string; image: string; [key: string]: unknown }>;
  [key: string]: unknown;
}

export function podSpecOf(object: K8sObject): PodSpec | undefined {
  const spec = object.spec as { template?: { spec?: PodSpec } } | undefined;
  return spec?.template?.spec;
}

/** `registry/name:tag@digest` -> the name and what follows it (`:tag`, `@digest`, or nothing). */
function splitImage(image: string): { name: string; rest: string } {
  const at = image.indexOf("@");
  const withoutDigest = at === -1 ? image : image.slice(0, at);
  const colon = withoutDigest.lastIndexOf(":");
  const end = colon > withoutDigest.lastIndexOf("/") ? colon : withoutDigest.length;
  return { name: image.slice(0, end), rest: image.slice(end) };
}

interface PatchOperation {
  op: "add" | "remove" | "replace" | "test";
  path: string;
  value?: unknown;
}

/** RFC 6902 add / remove / replace / test on one object (the operations kustomize's patches use here). */
function applyOperation(object: K8sObject, operation: PatchOperation, where: string): void {
  const fail = (why: string): never => {
    throw new Error(`${where}: ${operation.op} ${operation.path} on ${object.kind}/${object.metadata.name}: ${why}`);
  };
  const tokens = operation.path
    .split("/")
    .slice(1)
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
  const last = tokens.pop();
  if (last === undefined) throw new Error(`${where}: ${operation.op} with an empty path`);
  let parent: unknown = object;
  for (const token of tokens) {
    parent = Array.isArray(parent) ? parent[Number(token)] : (parent as Record<string, unknown> | undefined)?.[token];
    if (parent === undefined || parent === null || typeof parent !== "object") fail(`no ${token}`);
  }
  const container = parent as Record<string, unknown> | unknown[];
  if (Array.isArray(container)) {
    const index = last === "-" ? container.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > container.length) fail(`bad index ${last}`);
    if (operation.op === "add") container.splice(index, 0, operation.value);
    else if (index >= container.length) fail(`no element ${last}`);
    else if (operation.op === "remove") container.splice(index, 1);
    else if (operation.op === "replace") container[index] = operation.value;
    else if (JSON.stringify(container[index]) !== JSON.stringify(operation.value)) fail("test failed");
    return;
  }
  const exists = Object.hasOwn(container, last);
  if (operation.op === "add") container[last] = operation.value;
  else if (!exists) fail(`no ${last}`);
  else if (operation.op === "remove") delete container[last];
  else if (operation.op === "replace") container[last] = operation.value;
  else if (JSON.stringify(container[last]) !== JSON.stringify(operation.value)) fail("test failed");
}
