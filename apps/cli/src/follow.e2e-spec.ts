import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { createClient } from "@community/client";
import { compiledApiForSuite, contractFixture, TOKENS, until } from "@community/fixtures/testing";

const MAIN = path.resolve(__dirname, "../dist/main.js");

/** The built CLI's `changes --follow` as a process against the compiled api, stopped by a signal. */
describe("community changes --follow as a process", () => {
  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`pnpm build\` first`);
  });
  const api = compiledApiForSuite("cli_follow", contractFixture());

  function follow(since: string) {
    const child: ChildProcessWithoutNullStreams = spawn(
      process.execPath,
      [MAIN, "changes", "events", "--follow", "--since", since, "--format", "json", "--base-url", api.baseUrl],
      { env: { PATH: process.env.PATH, COMMUNITY_API_TOKEN: TOKENS.runner } },
    );
    const output = { stdout: "", stderr: "" };
    child.stdout.on("data", (chunk: Buffer) => {
      output.stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output.stderr += chunk.toString();
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    return { child, output, exited };
  }

  const rename = (id: string, name: string) =>
    api.database.prisma.$executeRawUnsafe("UPDATE events SET name = $1 WHERE id = $2", name, id);

  it.each(["SIGINT", "SIGTERM"] as const)(
    "prints each change as a JSON line as it commits, and exits 0 on %s",
    async (signal) => {
      const client = createClient({ baseUrl: api.baseUrl, token: TOKENS.runner });
      const { next } = await client.events.changes();
      const page = await client.listEvents({ perPage: 2 });
      if (page.notModified) throw new Error("a 304 without If-None-Match");
      const [first, second] = page.items.map((event) => event.id);
      const running = follow(next);

      await rename(first ?? "", `First ${signal}`);
      await until(() => running.output.stdout.split("\n").length === 2, "the first change is printed");
      // Written once the CLI holds a long poll: it arrives without a poll of its own.
      await rename(second ?? "", `Second ${signal}`);
      await until(() => running.output.stdout.split("\n").length === 3, "the second change is printed");

      running.child.kill(signal);
      const exit = await running.exited;
      expect(exit).toEqual({ code: 0, signal: null });
      const lines = running.output.stdout.trimEnd().split("\n");
      expect(lines.map((line) => JSON.parse(line) as { op: string; id: string; item: { name: string } })).toEqual([
        expect.objectContaining({
          op: "upsert",
          id: first,
          item: expect.objectContaining({ name: `First ${signal}` }),
        }),
        expect.objectContaining({
          op: "upsert",
          id: second,
          item: expect.objectContaining({ name: `Second ${signal}` }),
        }),
      ]);
      expect(running.output.stderr).toMatch(/^next: \S+\n$/);
      // The token printed goes on after both changes.
      const after = await client.events.changes({ since: running.output.stderr.slice("next: ".length).trim() });
      expect(after.changes).toEqual([]);
    },
    30_000,
  );
});
