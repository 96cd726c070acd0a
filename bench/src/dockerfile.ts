/**
 * The Dockerfile as instructions grouped by stage: what the bench reads of the image (its node
 * flags and its ENV, so that every server runs as the image runs it) and what the repository's
 * checks in test/ read of it (test/src/docker-files.ts re-exports this module).
 */

export interface Instruction {
  keyword: string;
  /** Everything after the keyword, continuations joined. */
  args: string;
  /** 1-based line of the keyword. */
  line: number;
}

export interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

/** Dockerfile -> stages of instructions (comments dropped, line continuations joined). */
export function parseDockerfile(text: string): Stage[] {
  const instructions: Instruction[] = [];
  let buffer = "";
  let start = 0;
  text.split(/\r?\n/).forEach((raw, index) => {
    if (/^\s*#/.test(raw) || (buffer === "" && raw.trim() === "")) return;
    if (buffer === "") start = index + 1;
    const continued = /\\\s*$/.test(raw);
    buffer += continued ? `${raw.replace(/\\\s*$/, "")} ` : raw;
    if (continued) return;
    const [, keyword = "", args = ""] = /^\s*(\S+)\s*(.*)$/.exec(buffer) ?? [];
    instructions.push({ keyword: keyword.toUpperCase(), args: args.trim(), line: start });
    buffer = "";
  });
  if (buffer !== "") throw new Error("Dockerfile ends inside a line continuation");

  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const [from = "", as, name] = instruction.args.split(/\s+/);
      stages.push({ from, name: as?.toLowerCase() === "as" ? name : undefined, instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`${instruction.keyword} before FROM (line ${instruction.line})`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

/** The stage and the stages it is built FROM, nearest first. */
export function stageLineage(stages: readonly Stage[], stage: Stage): Stage[] {
  const lineage: Stage[] = [];
  for (let current: Stage | undefined = stage; current !== undefined; ) {
    if (lineage.includes(current)) throw new Error(`Dockerfile: stage ${current.name} is built from itself`);
    lineage.push(current);
    const from: string = current.from;
    current = stages.find((s) => s.name === from);
  }
  return lineage;
}

/** The words of the image's CMD (the last stage's, in exec form): `node`, its flags, the script. */
export function imageCommand(stages: readonly Stage[]): string[] {
  const cmd = stages.at(-1)?.instructions.findLast((i) => i.keyword === "CMD");
  if (cmd === undefined) throw new Error("Dockerfile: no CMD in its last stage");
  return JSON.parse(cmd.args) as string[];
}
