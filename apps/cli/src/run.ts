import { type Collection, type CommunityClient, createClient, type ListPage } from "@community/client";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { type Column, EVENT_COLUMNS, GUIDE_COLUMNS } from "./columns";
import { describeFailure, EXIT } from "./exit-codes";
import { FORMATS, type Format, formatItems } from "./format";

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

export const TOKEN_ENV = "COMMUNITY_API_TOKEN";
export const BASE_URL_ENV = "COMMUNITY_API_URL";
export const DEFAULT_BASE_URL = "http://localhost:3000";

interface ListCommandOptions {
  all?: boolean;
  page?: number;
  perPage?: number;
  format: Format;
  token?: string;
  baseUrl?: string;
}

const positiveInteger = (name: string) => (raw: string) => {
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
  return Number(raw);
};

/** Runs the CLI on `argv` (without node and the script) and resolves to its exit code. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command("community")
    .description("Lists the events and guides of your community team.")
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  const listCommand = <T>(
    name: "events" | "guides",
    columns: Column<T>[],
    pick: (client: CommunityClient) => Collection<T>,
  ) =>
    program
      .command(name)
      .description(`list the team's ${name}`)
      .option("--all", "walk every page (follows the Link header)")
      .option("--page <n>", "page to show (without --all)", positiveInteger("--page"))
      .option("--per-page <n>", "items per page, 1-100", positiveInteger("--per-page"))
      .addOption(new Option("--format <format>", "output format").choices(FORMATS).default("table"))
      .option("--token <token>", `access token (default: $${TOKEN_ENV})`)
      .option("--base-url <url>", `api base URL (default: $${BASE_URL_ENV} or ${DEFAULT_BASE_URL})`)
      .action(async (options: ListCommandOptions) => {
        exitCode = await list(name, columns, pick, options, io);
      });

  listCommand("events", EVENT_COLUMNS, (client) => client.events);
  listCommand("guides", GUIDE_COLUMNS, (client) => client.guides);

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === "commander.helpDisplayed" || error.code === "commander.version" ? EXIT.ok : EXIT.usage;
    }
    throw error;
  }
  if (argv.length === 0) {
    io.stderr.write(program.helpInformation());
    return EXIT.usage;
  }
  return exitCode;
}

async function list<T>(
  name: "events" | "guides",
  columns: Column<T>[],
  pick: (client: CommunityClient) => Collection<T>,
  options: ListCommandOptions,
  io: CliIo,
): Promise<number> {
  const token = options.token ?? io.env[TOKEN_ENV];
  const baseUrl = options.baseUrl ?? (io.env[BASE_URL_ENV] || DEFAULT_BASE_URL);
  const tokenSource = options.token !== undefined ? "--token" : TOKEN_ENV;
  if (!token) {
    io.stderr.write(`error: no access token: pass --token <token> or set ${TOKEN_ENV}\n`);
    return EXIT.usage;
  }
  if (options.all && options.page !== undefined) {
    io.stderr.write("error: --page and --all exclude each other\n");
    return EXIT.usage;
  }
  try {
    new URL(baseUrl);
  } catch {
    io.stderr.write(`error: the base URL "${baseUrl}" is not an absolute URL\n`);
    return EXIT.usage;
  }

  const collection = pick(createClient({ baseUrl, token, fetch: io.fetch }));
  const progress = createProgress(io.stderr, name);
  try {
    const items: T[] = [];
    if (options.all) {
      for await (const item of collection.all({ perPage: options.perPage, onPage: progress.update })) items.push(item);
    } else {
      const page = await collection.list({ page: options.page, perPage: options.perPage });
      if (!page.notModified) items.push(...page.items);
    }
    progress.done();
    io.stdout.write(formatItems(items, options.format, columns));
    return EXIT.ok;
  } catch (error) {
    progress.done();
    const [message, code] = describeFailure(error, { tokenSource, baseUrl });
    io.stderr.write(`error: ${message}\n`);
    return code;
  }
}

/** "events: page 3/13 (300/1234)" on one rewritten stderr line, only when stderr is a terminal. */
function createProgress(stderr: CliIo["stderr"], name: string) {
  let shown = false;
  let seen = 0;
  return {
    update: (page: ListPage<unknown>) => {
      seen += page.items.length;
      if (!stderr.isTTY) return;
      const { current_page, total_pages } = page.pagination;
      stderr.write(`\r${name}: page ${current_page}/${total_pages} (${seen}/${page.totalCount})`);
      shown = true;
    },
    done: () => {
      if (shown) stderr.write("\r\x1b[2K");
      shown = false;
    },
  };
}
