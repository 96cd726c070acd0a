import { spawn, spawnSync } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");
const MAIN = path.join(ROOT, "apps/cli/dist/main.js");

/** The built CLI as a shell runs it: stdout carries data only, and a reader may stop reading early. */
describe("the community CLI as a process", () => {
  it("`pnpm -s cli` writes only the CLI's own output to stdout (the build's lines go to stderr)", () => {
    const result = spawnSync("pnpm", ["-s", "cli", "events", "--help"], { cwd: ROOT, encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(result.stdout.slice(0, 20)).toBe("Usage: community eve");
  }, 120_000);

  it("ends quietly with status 0 when stdout closes before it is done (`| head`)", async () => {
    const child = spawn(process.execPath, [MAIN, "events", "--help"], { stdio: ["ignore", "pipe", "pipe"] });
    // The reader goes away before the CLI writes anything.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
