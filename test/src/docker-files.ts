import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import dockerignore from "@balena/dockerignore";
import { parse } from "yaml";
import {
  imageCommand as commandOfImage,
  type Instruction,
  parseDockerfile,
  type Stage,
} from "../../bench/src/dockerfile";

/** The repository root, which is also the Docker build context. */
export const REPO_ROOT = path.resolve(__dirname, "../..");

/** The value, or an error that names what is missing (instead of a non-null assertion). */
export function defined<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new Error(`missing: ${what}`);
  return value;
}

export const repoPath = (...parts: string[]): string => path.join(REPO_ROOT, ...parts);

export function readJson<T>(relative: string): T {
  return JSON.parse(readFileSync(repoPath(relative), "utf8")) as T;
}

export interface PackageJson {
  name: string;
  main?: string;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  packageManager?: string;
}

// The Dockerfile's parser is the bench's, which reads the image's CMD and ENV from it too.
export { type Instruction, parseDockerfile, type Stage, stageLineage } from "../../bench/src/dockerfile";

export const readDockerfile = (relative = "Dockerfile"): Stage[] =>
  parseDockerfile(readFileSync(repoPath(relative), "utf8"));

/** The words of the image's CMD (the last stage's, in exec form): `node`, its flags, the script. */
export const imageCommand = (): string[] => commandOfImage(readDockerfile());

export interface CopyInstruction {
  from?: string;
  sources: string[];
  destination: string;
  line: number;
}

export function copyInstruction(instruction: Instruction): CopyInstruction {
  const words = instruction.args.split(/\s+/);
  const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
  const paths = words.filter((w) => !w.startsWith("--"));
  return {
    from,
    sources: paths.slice(0, -1),
    destination: defined(paths.at(-1), `COPY destination (line ${instruction.line})`),
    line: instruction.line,
  };
}

/** The build context's files: what git sees (tracked or not ignored), less what .dockerignore excludes. */
export function contextFiles(): Set<string> {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  const ignore = dockerignore().add(readFileSync(repoPath(".dockerignore"), "utf8").split(/\r?\n/));
  return new Set(listed.split("\0").filter((file) => file && existsSync(repoPath(file)) && !ignore.ignores(file)));
}

/** True when the context holds this file, or a folder with at least one file in it. */
export function inContext(files: Set<string>, relative: string): boolean {
  const clean = path.posix.normalize(relative).replace(/\/+$/, "");
  if (clean === ".") return files.size > 0;
  return files.has(clean) || [...files].some((file) => file.startsWith(`${clean}/`));
}

/** What the tests read of pnpm-workspace.yaml. */
function workspaceManifest(): { packages: string[]; patchedDependencies?: Record<string, string> } {
  return parse(readFileSync(repoPath("pnpm-workspace.yaml"), "utf8"));
}

/** Folders of the patches that pnpm-workspace.yaml's patchedDependencies name (none: dependencies run as published). */
export function patchFolders(): string[] {
  const patches = Object.values(workspaceManifest().patchedDependencies ?? {});
  return [...new Set(patches.map((patch) => path.posix.dirname(patch)))];
}

/** Folders of the workspace's packages (pnpm-workspace.yaml globs of the form `dir/*`, or a folder). */
export function workspacePackageDirs(): string[] {
  return workspaceManifest().packages.flatMap((glob) => {
    if (/^[\w.-]+(\/[\w.-]+)*$/.test(glob)) return existsSync(repoPath(glob, "package.json")) ? [glob] : [];
    if (!glob.endsWith("/*")) throw new Error(`unsupported workspace glob: ${glob}`);
    const parent = glob.slice(0, -2);
    return readdirSync(repoPath(parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(repoPath(parent, entry.name, "package.json")))
      .map((entry) => `${parent}/${entry.name}`);
  });
}

/**
 * Runs a health-check one-liner (`node -e SCRIPT`) against a stand-in server whose /health/ready
 * answers `status` (undefined: no server listens on the port the script is given) and resolves
 * with its exit code. `aim` points the script at a port: by rewriting it or through its env.
 */
export async function healthCheckExitCode(
  status: number | undefined,
  aim: (port: number) => { script: string; env?: NodeJS.ProcessEnv },
): Promise<number | null> {
  const server = createServer((request, response) => {
    response.statusCode = request.url === "/health/ready" && status !== undefined ? status : 404;
    response.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const { script, env } = aim(status === undefined ? port + 1 : port);
  const child = spawn(process.execPath, ["-e", script], { env: { ...process.env, ...env } });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  await new Promise((resolve) => server.close(resolve));
  return code;
}
