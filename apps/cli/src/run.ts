import {
  type CalendarFeed,
  type CalendarFeedWithUrl,
  type Change,
  CLIENT_DEFAULTS,
  type Collection,
  type CommunityClient,
  type CursorPage,
  createClient,
  EVENT_STATUSES,
  type Event,
  type EventFilters,
  GUIDE_STATUSES,
  type Guide,
  type GuideFilters,
  LIST_NAMES,
  type ListName,
  type ListPage,
  WalkLimitError,
} from "@community/client";
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { CALENDAR_FEED_COLUMNS, type Column, EVENT_COLUMNS, GUIDE_COLUMNS } from "./columns";
import { describeFailure, EXIT } from "./exit-codes";
import { createItemWriter, FORMATS, type Format, formatItems, loadMeasureWidth } from "./format";
import { escapeControls, escapeJsonControls } from "./sanitize";

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  /**
   * For a command that runs until it is stopped (`changes --follow`): a signal that SIGINT or
   * SIGTERM aborts. Asked for only by such a command, so that any other stops at once on Ctrl-C.
   */
  interrupted?: () => AbortSignal;
}

export const TOKEN_ENV = "COMMUNITY_API_TOKEN";
export const BASE_URL_ENV = "COMMUNITY_API_URL";
export const DEFAULT_BASE_URL = "http://localhost:3000";

interface ConnectionOptions {
  token?: string;
  baseUrl?: string;
  format: Format;
  perPage?: number;
}

interface ListCommandOptions extends ConnectionOptions {
  all?: boolean;
  page?: number;
  status?: string[];
  scheduledFrom?: string;
  scheduledTo?: string;
  publishedFrom?: string;
  publishedTo?: string;
}

interface ChangesCommandOptions extends ConnectionOptions {
  since?: string;
  follow?: boolean;
  wait?: number;
}

/** A list as the CLI offers it: its command, status words, time window, columns and collection. */
interface ListSpec<T, F> {
  name: ListName;
  statuses: readonly string[];
  /** The filters' time window: `--<window>-from` and `--<window>-to`. */
  window: "scheduled" | "published";
  columns: Column<T>[];
  pick: (client: CommunityClient) => Collection<T, F>;
}

// The lists' specs: data of one shape (the duplicates tool pairs them), one object per list.
const EVENTS: ListSpec<Event, EventFilters> = {
  name: "events",
  statuses: EVENT_STATUSES,
  window: "scheduled",
  columns: EVENT_COLUMNS,
  pick: (client) => client.events,
};

const GUIDES: ListSpec<Guide, GuideFilters> = {
  name: "guides",
  statuses: GUIDE_STATUSES,
  window: "published",
  columns: GUIDE_COLUMNS,
  pick: (client) => client.guides,
};

const integerInRange = (name: string, min: number, max: number) => (raw: string) => {
  const value = Number(raw);
  if (!/^[0-9]+$/.test(raw) || value < min || value > max) {
    throw new InvalidArgumentError(`${name} must be an integer between ${min} and ${max}`);
  }
  return value;
};

const statusList = (allowed: readonly string[]) => (raw: string) => {
  const words = raw.split(",");
  if (words.some((word) => !allowed.includes(word))) {
    throw new InvalidArgumentError(`--status takes a comma-separated list of ${allowed.join(", ")}`);
  }
  return words;
};

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const instant = (raw: string) => {
  if (!RFC3339.test(raw) || Number.isNaN(Date.parse(raw))) {
    throw new InvalidArgumentError("must be an RFC 3339 date-time with Z or an offset, e.g. 2026-03-01T00:00:00Z");
  }
  return raw;
};

/** Runs the CLI on `argv` (without node and the script) and resolves to its exit code. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command("community")
    .description("Lists the events and guides of your community team, and what changed in them.")
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  const connection = (command: Command) =>
    command
      .addOption(new Option("--format <format>", "output format").choices(FORMATS).default("table"))
      .option("--token <token>", `access token (default: $${TOKEN_ENV})`)
      .option("--base-url <url>", `api base URL (default: $${BASE_URL_ENV} or ${DEFAULT_BASE_URL})`);
  const common = (command: Command) =>
    connection(command.option("--per-page <n>", "items per request, 1-100", integerInRange("--per-page", 1, 100)));

  const listCommand = (name: ListName) =>
    common(
      program
        .command(name)
        .description(`list the team's ${name}`)
        .option("--all", "every page (a cursor walk)")
        .option("--page <n>", "page to show (without --all)", integerInRange("--page", 1, 2_147_483_647)),
    );

  const filteredListCommand = <T extends { id: string }, F>(spec: ListSpec<T, F>) => {
    const { name, statuses, window } = spec;
    listCommand(name)
      .option("--status <list>", `any of ${statuses.join(",")}`, statusList(statuses))
      .option(`--${window}-from <time>`, `${window} at or after this instant`, instant)
      .option(`--${window}-to <time>`, `${window} before this instant`, instant)
      .action(async (options: ListCommandOptions) => {
        const filters = {
          status: options.status,
          [`${window}From`]: options[`${window}From`],
          [`${window}To`]: options[`${window}To`],
        } as F;
        exitCode = await list(spec, filters, options, io);
      });
  };
  filteredListCommand(EVENTS);
  filteredListCommand(GUIDES);

  common(
    program
      .command("changes")
      .description("the changes of a list since a token, and the token to ask with next time")
      .addArgument(new Argument("<list>", LIST_NAMES.join(" or ")).choices(LIST_NAMES))
      .option("--since <token>", "a token printed by an earlier run (without it: the token of now)")
      .option(
        "--follow",
        "keep asking, printing each change as it commits, until interrupted (Ctrl-C); the token to go on from goes to stderr",
      )
      .option(
        "--wait <seconds>",
        "hold each request up to this long while nothing changed, 0-60 (default with --follow: 30)",
        integerInRange("--wait", 0, 60),
      ),
  ).action(async (name: ListName, options: ChangesCommandOptions) => {
    if (options.wait !== undefined && options.since === undefined && !options.follow) {
      io.stderr.write("error: --wait needs --since or --follow (a long poll waits for the changes after a token)\n");
      exitCode = EXIT.usage;
      return;
    }
    if (name === "events") {
      exitCode = options.follow ? await followChanges(EVENTS, options, io) : await changes(EVENTS, options, io);
    } else {
      exitCode = options.follow ? await followChanges(GUIDES, options, io) : await changes(GUIDES, options, io);
    }
  });

  const feeds = program
    .command("calendar-feeds")
    .description("secret URLs that serve the team's events to calendar applications (create, list, rotate, delete)");
  const feedCommand = (name: string, description: string) => connection(feeds.command(name).description(description));
  feedCommand("create", "create a feed and print its secret URL (shown this once)")
    .option("--name <name>", "a name to tell it apart, 1-100 characters")
    .action(async (options: ConnectionOptions & { name?: string }) => {
      exitCode = await calendarFeeds(options, io, (client) => client.create({ name: options.name }).then((f) => [f]));
    });
  feedCommand("list", "the feeds you created (never their URLs)").action(async (options: ConnectionOptions) => {
    exitCode = await calendarFeeds(options, io, (client) => client.list());
  });
  feedCommand("rotate", "a new secret URL for a feed; the old one stops at once")
    .argument("<id>", "the feed's id")
    .action(async (id: string, options: ConnectionOptions) => {
      exitCode = await calendarFeeds(options, io, (client) => client.rotate(id).then((f) => [f]));
    });
  feedCommand("delete", "delete a feed; its URL stops at once")
    .argument("<id>", "the feed's id")
    .action(async (id: string, options: ConnectionOptions) => {
      exitCode = await calendarFeeds(options, io, (client) => client.delete(id).then(() => []));
    });

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

/** The client and what error messages need, or the usage exit code after saying what is missing. */
function connect(options: ConnectionOptions, io: CliIo) {
  const token = options.token ?? io.env[TOKEN_ENV];
  const baseUrl = options.baseUrl ?? (io.env[BASE_URL_ENV] || DEFAULT_BASE_URL);
  const hints = { tokenSource: options.token !== undefined ? "--token" : TOKEN_ENV, baseUrl };
  if (!token) {
    io.stderr.write(`error: no access token: pass --token <token> or set ${TOKEN_ENV}\n`);
    return EXIT.usage;
  }
  try {
    new URL(baseUrl);
  } catch {
    io.stderr.write(`error: the base URL "${escapeControls(baseUrl)}" is not an absolute URL\n`);
    return EXIT.usage;
  }
  return { client: createClient({ baseUrl, token, fetch: io.fetch }), hints };
}

function fail(error: unknown, hints: { tokenSource: string; baseUrl: string }, io: CliIo): number {
  const [message, code] = describeFailure(error, hints);
  io.stderr.write(`error: ${message}\n`);
  return code;
}

async function list<T extends { id: string }, F>(
  { name, columns, pick }: ListSpec<T, F>,
  filters: F,
  options: ListCommandOptions,
  io: CliIo,
): Promise<number> {
  if (options.all && options.page !== undefined) {
    io.stderr.write("error: --page and --all exclude each other\n");
    return EXIT.usage;
  }
  const connection = connect(options, io);
  if (typeof connection === "number") return connection;
  const collection = pick(connection.client);
  const width = await loadMeasureWidth();
  const progress = createProgress(io.stderr, name);
  const output = createItemWriter(options.format, columns, width, io.stdout);
  try {
    if (options.all) {
      let page: T[] = [];
      // all() reports a page before handing over its items: the buffer holds the page before it.
      const onPage = (done: ListPage<T> | CursorPage<T>) => {
        progress.done();
        output.write(page);
        page = [];
        progress.update(done);
      };
      for await (const item of collection.all({ perPage: options.perPage, filters, onPage })) page.push(item);
      output.write(page);
    } else {
      const page = await collection.list({ page: options.page, perPage: options.perPage, filters });
      if (!page.notModified) output.write(page.items);
    }
    progress.done();
    output.end();
    return EXIT.ok;
  } catch (error) {
    progress.done();
    return fail(error, connection.hints, io);
  }
}

async function changes<T extends { id: string }, F>(
  { name, columns, pick }: ListSpec<T, F>,
  options: ChangesCommandOptions,
  io: CliIo,
): Promise<number> {
  const connection = connect(options, io);
  if (typeof connection === "number") return connection;
  const collection = pick(connection.client);
  const width = await loadMeasureWidth();
  try {
    const all: Change<T>[] = [];
    let next = options.since;
    for (let pages = 0; ; pages++) {
      if (pages >= CLIENT_DEFAULTS.maxPages) throw new WalkLimitError("maxPages", CLIENT_DEFAULTS.maxPages, name);
      const page = await collection.changes({ since: next, perPage: options.perPage, wait: options.wait });
      all.push(...page.changes);
      next = page.next;
      if (!page.hasMore) break;
    }
    const token = escapeControls(next ?? "");
    if (options.format === "json") {
      io.stdout.write(`${escapeJsonControls(JSON.stringify({ changes: all, next: next }, null, 2))}\n`);
    } else {
      io.stdout.write(formatItems(all, options.format, changeColumns(columns), width));
      // CSV stays rows only; the token goes beside it on stderr.
      (options.format === "csv" ? io.stderr : io.stdout).write(`next: ${token}\n`);
    }
    return EXIT.ok;
  } catch (error) {
    return fail(error, connection.hints, io);
  }
}

/**
 * `changes --follow`: long polls (the client's follow()) from --since or from now, each change
 * written as it arrives: JSON as one object per line, CSV and table rows under one header. At
 * SIGINT or SIGTERM the request in flight is aborted, the token to go on from goes to stderr and
 * the exit code is 0. Retries (the api away, 429, 5xx) are told on stderr.
 */
async function followChanges<T extends { id: string }, F>(
  { pick, columns }: ListSpec<T, F>,
  options: ChangesCommandOptions,
  io: CliIo,
): Promise<number> {
  const connection = connect(options, io);
  if (typeof connection === "number") return connection;
  const signal = io.interrupted?.() ?? new AbortController().signal;
  const collection = pick(connection.client);
  const width = await loadMeasureWidth();
  const rows = changeColumns(columns);
  let next = options.since;
  let headed = false;
  const write = (changes: Change<T>[]) => {
    if (options.format === "json") {
      io.stdout.write(changes.map((change) => `${escapeJsonControls(JSON.stringify(change))}\n`).join(""));
      return;
    }
    const text = formatItems(changes, options.format, rows, width);
    // The header line once, above the first rows.
    io.stdout.write(headed ? text.slice(text.indexOf("\n") + 1) : text);
    headed = true;
  };
  const onRetry = (error: unknown, delayMs: number) => {
    const [message] = describeFailure(error, connection.hints);
    io.stderr.write(`warning: ${message} (trying again in ${Math.ceil(delayMs / 1000)} s)\n`);
  };
  try {
    const pages = collection.follow({
      since: options.since,
      perPage: options.perPage,
      wait: options.wait,
      signal,
      onRetry,
    });
    for await (const page of pages) {
      next = page.next;
      if (page.changes.length > 0) write(page.changes);
    }
    io.stderr.write(`next: ${escapeControls(next ?? "")}\n`);
    return EXIT.ok;
  } catch (error) {
    return fail(error, connection.hints, io);
  }
}

/** A calendar-feeds subcommand: its request, then the feeds it answered with in the chosen format. */
async function calendarFeeds(
  options: ConnectionOptions,
  io: CliIo,
  act: (feeds: CommunityClient["calendarFeeds"]) => Promise<Array<CalendarFeed | CalendarFeedWithUrl>>,
): Promise<number> {
  const connection = connect(options, io);
  if (typeof connection === "number") return connection;
  const width = await loadMeasureWidth();
  try {
    const feeds = await act(connection.client.calendarFeeds);
    if (feeds.length > 0 || options.format !== "table") {
      io.stdout.write(formatItems(feeds, options.format, CALENDAR_FEED_COLUMNS, width));
    }
    return EXIT.ok;
  } catch (error) {
    return fail(error, connection.hints, io);
  }
}

/** A change as a row: op and id, then the item's columns (empty for a delete). */
function changeColumns<T>(columns: Column<T>[]): Column<Change<T>>[] {
  return [
    { header: "op", value: (c) => c.op, inTable: true },
    { header: "id", value: (c) => c.id, inTable: true },
    ...columns
      .filter((column) => column.header !== "id")
      .map((column) => ({
        header: column.header,
        inTable: column.inTable,
        value: (c: Change<T>) => (c.op === "upsert" ? column.value(c.item) : null),
      })),
  ];
}

/** "events: page 3 (300)", or "page 3/13 (300/1234)" in page mode, on one rewritten stderr line of a terminal. */
function createProgress(stderr: CliIo["stderr"], name: string) {
  let shown = false;
  let seen = 0;
  let pages = 0;
  return {
    update: (page: ListPage<unknown> | CursorPage<unknown>) => {
      seen += page.items.length;
      pages++;
      if (!stderr.isTTY) return;
      const line =
        page.mode === "page"
          ? `page ${page.pagination.current_page}/${page.pagination.total_pages} (${seen}/${page.totalCount ?? "?"})`
          : `page ${pages} (${seen})`;
      stderr.write(`\r${name}: ${line}`);
      shown = true;
    },
    done: () => {
      if (shown) stderr.write("\r\x1b[2K");
      shown = false;
    },
  };
}
