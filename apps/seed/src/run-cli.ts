import { parseArgs } from "node:util";
import { createDatabase, migrationState } from "@community/db";
import type { FixtureFile } from "@community/domain";
import {
  DEMO_TOKENS,
  demoFixture,
  FixtureValidationError,
  type LoadCounts,
  loadFixture,
  readFixtureFile,
} from "@community/fixtures";

/** Where the command writes; the real streams in cli.ts, buffers in tests. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export type CliEnv = Readonly<Record<string, string | undefined>>;

export const EXIT_OK = 0;
/** The fixture is invalid, the database is not ready, or the load failed. */
export const EXIT_FAILURE = 1;
/** The command was called wrongly: arguments or environment. */
export const EXIT_USAGE = 2;

export const USAGE = `Usage: community-seed (--file <path> | --demo)

Loads a fixture into the database named by DATABASE_URL: an idempotent upsert by id, in one
transaction. A fixture that fails validation loads nothing; every issue is listed by JSON path.

Options:
  --file <path>  load the JSON fixture file at <path> (api contract, section 8)
  --demo         load the built-in demo data (3 teams, well-known demo access tokens)
  -h, --help     show this help

Environment:
  DATABASE_URL   postgresql:// connection string (required)

Exit codes: 0 loaded, 1 invalid fixture or database not ready, 2 wrong usage.
`;

/** Progress lines are only worth printing for big files. */
const PROGRESS_THRESHOLD = 100_000;

/**
 * The seed command. Returns the exit code instead of exiting, so that tests can run it in-process.
 */
export async function main(argv: readonly string[], env: CliEnv, io: CliIo): Promise<number> {
  let values: { file?: string; demo?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        file: { type: "string" },
        demo: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return usageError(io, error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    io.stdout(USAGE);
    return EXIT_OK;
  }
  if ((values.file === undefined) === (values.demo !== true)) {
    return usageError(io, "give exactly one of --file <path> and --demo");
  }
  if (values.file === "") {
    return usageError(io, "--file needs a path");
  }

  const url = env.DATABASE_URL;
  const urlProblem = checkDatabaseUrl(url);
  if (url === undefined || urlProblem !== undefined) {
    io.stderr(`error: ${urlProblem}\n`);
    return EXIT_USAGE;
  }

  let fixture: FixtureFile;
  if (values.file !== undefined) {
    try {
      fixture = await readFixtureFile(values.file);
    } catch (error) {
      if (error instanceof FixtureValidationError) {
        return printIssues(io, values.file, error);
      }
      // ENOENT, EACCES, EISDIR, or ERR_STRING_TOO_LONG for a file beyond V8's ~512 MB string limit.
      io.stderr(`error: cannot read fixture file ${values.file}: ${errorMessage(error)}\n`);
      return EXIT_USAGE;
    }
  } else {
    fixture = demoFixture();
  }

  const target = describeDatabase(url);
  // One connection is all a single transaction uses; statements of a big load may run long.
  const db = createDatabase({ url, poolMax: 2, connectTimeoutMs: 5_000, statementTimeoutMs: 120_000 });
  try {
    let state: Awaited<ReturnType<typeof migrationState>>;
    try {
      state = await migrationState(db.pool);
    } catch (error) {
      io.stderr(`error: cannot reach the database ${target} (DATABASE_URL): ${errorMessage(error)}\n`);
      return EXIT_FAILURE;
    }
    if (state.failed.length > 0) {
      io.stderr(
        `error: the database ${target} has failed migrations (${state.failed.join(", ")}); resolve them, then run \`pnpm db:migrate\`\n`,
      );
      return EXIT_FAILURE;
    }
    if (state.pending.length > 0) {
      io.stderr(
        `error: the database ${target} has ${state.pending.length} pending migration(s) (${state.pending.join(", ")}); run \`pnpm db:migrate\` first\n`,
      );
      return EXIT_FAILURE;
    }

    const total = Object.values(fixture).reduce((sum, items) => sum + items.length, 0);
    let nextReport = 0.1;
    // Given the pool, large event and guide collections stream through COPY (not on PGlite).
    const counts = await loadFixture(db, fixture, {
      // readFixtureFile has just validated the file; the demo is checked the same way as any input.
      alreadyValidated: values.file !== undefined,
      onProgress:
        total < PROGRESS_THRESHOLD
          ? undefined
          : (done, all) => {
              if (done / all >= nextReport || done === all) {
                io.stderr(`  ${done} of ${all} entries written (${Math.floor((100 * done) / all)}%)\n`);
                nextReport = Math.floor((10 * done) / all + 1) / 10;
              }
            },
    });
    io.stdout(formatCounts(values.file ?? "the demo data", target, counts));
    if (values.demo) {
      io.stdout(formatDemoTokens());
    }
    return EXIT_OK;
  } catch (error) {
    if (error instanceof FixtureValidationError) {
      return printIssues(io, values.file ?? "the demo data", error);
    }
    io.stderr(`error: loading into ${target} failed, nothing was written: ${errorMessage(error)}\n`);
    return EXIT_FAILURE;
  } finally {
    await db.close();
  }
}

function usageError(io: CliIo, message: string): number {
  io.stderr(`error: ${message}\n\n${USAGE}`);
  return EXIT_USAGE;
}

function checkDatabaseUrl(url: string | undefined): string | undefined {
  if (url === undefined || url.trim() === "") {
    return "DATABASE_URL is not set: set it to a postgresql:// connection string, e.g. postgresql://postgres@127.0.0.1:5432/postgres";
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "DATABASE_URL is not a valid URL: expected postgresql://user@host:port/database";
  }
  if (parsed.protocol !== "postgresql:" && parsed.protocol !== "postgres:") {
    return `DATABASE_URL must start with postgresql:// or postgres://, not ${parsed.protocol}//`;
  }
  return undefined;
}

/** host:port/database, without the credentials that a URL may carry. */
function describeDatabase(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ""}${parsed.pathname}`;
}

/** Duck-typed: errors of Node's own modules may come from another realm (as under jest). */
function errorMessage(error: unknown): string {
  const { message, errors } = (error ?? {}) as { message?: unknown; errors?: unknown };
  // A refused connection to "localhost" is an AggregateError (IPv4 and IPv6) with an empty message.
  if (Array.isArray(errors) && errors.length > 0 && !message) {
    return errors.map(errorMessage).join("; ");
  }
  return typeof message === "string" && message !== "" ? message : String(error);
}

function printIssues(io: CliIo, source: string, error: FixtureValidationError): number {
  const count = error.issues.length;
  io.stderr(`${source} is not a valid fixture (${count} issue${count === 1 ? "" : "s"}); nothing was written:\n`);
  for (const issue of error.issues) {
    io.stderr(`  ${issue.path}: ${issue.message}\n`);
  }
  return EXIT_FAILURE;
}

function formatCounts(source: string, target: string, counts: LoadCounts): string {
  const width = Math.max(...Object.keys(counts).map((name) => name.length));
  const lines = Object.entries(counts).map(([name, count]) => `  ${`${name}:`.padEnd(width + 1)} ${count}`);
  return `Loaded ${source} into ${target}:\n${lines.join("\n")}\n`;
}

function formatDemoTokens(): string {
  const lines = Object.values(DEMO_TOKENS).map((demo) => `  ${demo.token.padEnd(22)} ${demo.purpose}`);
  return [
    "",
    "Demo access tokens (public: never load the demo into a production database):",
    ...lines,
    "",
    "Try: curl -H 'Authorization: Bearer demo-token-runners' 'http://localhost:3000/v1/me/community/team/events?per_page=5'",
    "",
  ].join("\n");
}
