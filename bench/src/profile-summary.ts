import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a function's code lives: a package, Node's internals, the workspace, or a VM state. */
function owner(url: string, functionName: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const rest = url.slice(modules + "node_modules/".length).split("/");
    return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  if (url.startsWith("node:")) return "node (internals)";
  const workspace = /\/(apps\/[^/]+|packages\/[^/]+|bench)\//.exec(url);
  return workspace ? `workspace ${workspace[1]}` : url;
}

/**
 * Self time of a V8 CPU profile (`node --cpu-prof`), grouped by owner and by function: the flat
 * part of a flame graph, enough to see which layer a request's time goes to.
 */
export function summarizeProfile(file: string, top = 12): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const total = [...selfMs.values()].reduce((a, b) => a + b, 0);
  const idle = [...selfMs]
    .filter(([id]) => byId.get(id)?.callFrame.functionName === "(idle)")
    .reduce((a, [, ms]) => a + ms, 0);
  const busy = total - idle;
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined || frame.functionName === "(idle)") continue;
    const who = owner(frame.url, frame.functionName);
    owners.set(who, (owners.get(who) ?? 0) + ms);
    const name = `${frame.functionName || "(anonymous)"} (${who})`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
  }
  const rows = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => `| ${name} | ${ms.toFixed(0)} | ${((100 * ms) / busy).toFixed(1)}% |`);
  return [
    `busy ${busy.toFixed(0)} ms of ${total.toFixed(0)} ms sampled`,
    "",
    "| self time by owner | ms | share of busy |",
    "|---|---:|---:|",
    ...rows(owners),
    "",
    "| self time by function | ms | share of busy |",
    "|---|---:|---:|",
    ...rows(functions),
    "",
  ].join("\n");
}
