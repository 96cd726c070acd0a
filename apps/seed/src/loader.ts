import { hashSecret, hashToken, Prisma, type PrismaClient, verifySecret } from "@community/db";
import {
  type FixtureAccessToken,
  type FixtureAccount,
  type FixtureEvent,
  type FixtureFile,
  type FixtureGuide,
  type FixtureIssue,
  type FixtureOAuthClient,
  type FixtureTeam,
  type FixtureUser,
  validateFixture,
} from "@community/domain";
import { FixtureValidationError } from "./errors";

export type FixtureCollection = keyof FixtureFile;

/** Entries of each collection that the database now holds as the file says (inserted, updated or unchanged). */
export type LoadCounts = Record<Exclude<FixtureCollection, "oauth_clients">, number> & { oauth_clients?: number };

export interface LoadOptions {
  /** Rows per SQL statement; bounds the size of each round trip (default 5,000). */
  batchSize?: number;
  /** How long the single transaction may run before it is rolled back (ms, default 30 minutes). */
  transactionTimeoutMs?: number;
  /** Called after every batch with the entries written so far and the entries of the file. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Skips the shape validation (about 7 s per million events) for a fixture that validateFixture
   * or readFixtureFile has just returned and that nobody changed since. References and slugs are
   * still checked against the database.
   */
  alreadyValidated?: boolean;
}

export const DEFAULT_BATCH_SIZE = 5_000;
const DEFAULT_TRANSACTION_TIMEOUT_MS = 30 * 60_000;

/** Loading order: every row is written after the rows it refers to. */
const COLLECTIONS: readonly FixtureCollection[] = [
  "accounts",
  "teams",
  "users",
  "access_tokens",
  "events",
  "guides",
  "oauth_clients",
];

type Tx = Prisma.TransactionClient;
type ReferenceKind = "team" | "account" | "user";

// Table names are spliced into SQL, so they only ever come from these constants.
const ACCOUNTS_TABLE = Prisma.raw('"accounts"');
const REFERENCED_TABLE: Record<ReferenceKind, Prisma.Sql> = {
  team: Prisma.raw('"teams"'),
  account: ACCOUNTS_TABLE,
  user: Prisma.raw('"users"'),
};
const TEAM_ITEM_TABLE = { events: Prisma.raw('"events"'), guides: Prisma.raw('"guides"') } as const;

/**
 * A slug that a row gives up within this load is parked on this unique placeholder first, so that
 * renames inside one file (including swaps) never trip the unique index half-way.
 */
const PARKED_SLUG_PREFIX = "\u2060seed-parked:";

/**
 * Loads a fixture: an idempotent upsert by id (access tokens by the hash of the token) in ONE
 * transaction. The shape is validated first, then, inside the transaction, what only the database
 * can tell: references to rows that are neither in the file nor in the database, and slugs taken by
 * other rows. Any issue throws a FixtureValidationError listing them all, and nothing is written.
 *
 * Rows go in with `INSERT ... SELECT FROM unnest(arrays) ON CONFLICT DO UPDATE`, one statement per
 * batch, so a million events cost a few hundred round trips rather than a million.
 */
export async function loadFixture(
  prisma: PrismaClient,
  fixture: FixtureFile,
  options: LoadOptions = {},
): Promise<LoadCounts> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  }
  // The type says nothing about currencies, timestamps or duplicates: a fixture built in code
  // gets the same checks as one read from a file.
  const data = options.alreadyValidated ? fixture : validated(fixture);
  const total = COLLECTIONS.reduce((sum, name) => sum + (data[name]?.length ?? 0), 0);
  // Slow hashes (about 100 ms each) are computed before the transaction opens, not inside it.
  const secrets = await hashFixtureSecrets(prisma, data);

  return prisma.$transaction(
    async (tx) => {
      const issues = await findReferenceIssues(tx, data, batchSize);
      const slugs = await checkSlugs(tx, data, batchSize);
      issues.push(...slugs.issues);
      if (issues.length > 0) {
        throw new FixtureValidationError(issues);
      }

      let done = 0;
      const write = async <T>(items: readonly T[], statement: (batch: readonly T[]) => Prisma.Sql) => {
        for (const batch of chunks(items, batchSize)) {
          await tx.$executeRaw(statement(batch));
          done += batch.length;
          options.onProgress?.(done, total);
        }
      };

      await parkSlugs(tx, ACCOUNTS_TABLE, slugs.parked.accounts, batchSize);
      await write(data.accounts, upsertAccounts);
      await write(data.teams, upsertTeams);
      await write(data.users, upsertUsers);
      // Not counted as progress: these rows were just written by upsertUsers.
      for (const batch of chunks(secrets.passwords, batchSize)) await tx.$executeRaw(setPasswords(batch));
      await write(data.access_tokens, upsertAccessTokens);
      await parkSlugs(tx, TEAM_ITEM_TABLE.events, slugs.parked.events, batchSize);
      await write(data.events, upsertEvents);
      await parkSlugs(tx, TEAM_ITEM_TABLE.guides, slugs.parked.guides, batchSize);
      await write(data.guides, upsertGuides);
      await write(secrets.clients, upsertOAuthClients);

      const counts = {} as LoadCounts;
      for (const name of COLLECTIONS) {
        // An optional collection is only reported when the file has it.
        const items = data[name];
        if (items !== undefined) counts[name] = items.length;
      }
      return counts;
    },
    { timeout: options.transactionTimeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS, maxWait: 10_000 },
  );
}

function validated(fixture: FixtureFile): FixtureFile {
  const checked = validateFixture(fixture);
  if (!checked.ok) {
    throw new FixtureValidationError(checked.issues);
  }
  return checked.fixture;
}

function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) {
    yield items.slice(start, start + size);
  }
}

/** Calls `visit` for every reference of the file, with its JSON path built only on demand. */
function forEachReference(
  data: FixtureFile,
  visit: (kind: ReferenceKind, id: string, path: () => string) => void,
): void {
  data.users.forEach((user, i) => {
    if (user.team_id !== null) visit("team", user.team_id, () => `users[${i}].team_id`);
  });
  data.access_tokens.forEach((token, i) => {
    visit("user", token.user_id, () => `access_tokens[${i}].user_id`);
  });
  for (const collection of ["events", "guides"] as const) {
    data[collection].forEach((item, i) => {
      visit("team", item.team_id, () => `${collection}[${i}].team_id`);
      visit("account", item.account_id, () => `${collection}[${i}].account_id`);
    });
  }
}

/** References to ids that are neither in the file nor in the database. */
async function findReferenceIssues(tx: Tx, data: FixtureFile, batchSize: number): Promise<FixtureIssue[]> {
  const inFile: Record<ReferenceKind, Set<string>> = {
    team: new Set(data.teams.map((t) => t.id)),
    account: new Set(data.accounts.map((a) => a.id)),
    user: new Set(data.users.map((u) => u.id)),
  };
  const elsewhere: Record<ReferenceKind, Set<string>> = { team: new Set(), account: new Set(), user: new Set() };
  forEachReference(data, (kind, id) => {
    if (!inFile[kind].has(id)) elsewhere[kind].add(id);
  });

  const inDatabase: Record<ReferenceKind, Set<string>> = { team: new Set(), account: new Set(), user: new Set() };
  for (const kind of ["team", "account", "user"] as const) {
    for (const ids of chunks([...elsewhere[kind]], batchSize)) {
      const rows = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM ${REFERENCED_TABLE[kind]} WHERE id = ANY(${ids}::text[])`;
      for (const row of rows) inDatabase[kind].add(row.id);
    }
  }

  const issues: FixtureIssue[] = [];
  forEachReference(data, (kind, id, path) => {
    if (!inFile[kind].has(id) && !inDatabase[kind].has(id)) {
      issues.push({
        path: path(),
        message: `refers to ${kind} ${JSON.stringify(id)}, which is neither in the file nor in the database`,
      });
    }
  });
  return issues;
}

interface SlugCheck {
  issues: FixtureIssue[];
  /** Ids of database rows whose slug another entry of the file takes, while the file renames them. */
  parked: { accounts: string[]; events: string[]; guides: string[] };
}

/**
 * Finds slugs of the file that other rows of the database hold (account slugs globally, event and
 * guide slugs within their team). When the holder is itself in the file it is being renamed, which
 * is fine once its old slug is parked; otherwise the entry is an issue.
 *
 * The lookups are LATERAL ... LIMIT 1 (the unique index allows one holder at most anyway): as a
 * plain join, the planner hashes the whole table for every batch, which made reloading a million
 * events quadratic.
 */
async function checkSlugs(tx: Tx, data: FixtureFile, batchSize: number): Promise<SlugCheck> {
  const result: SlugCheck = { issues: [], parked: { accounts: [], events: [], guides: [] } };

  const accountIds = new Set(data.accounts.map((a) => a.id));
  for (let start = 0; start < data.accounts.length; start += batchSize) {
    const batch = data.accounts.slice(start, start + batchSize);
    const rows = await tx.$queryRaw<{ ord: number; id: string }[]>`
      SELECT f.ord::int AS ord, a.id
        FROM unnest(${batch.map((a) => a.id)}::text[], ${batch.map((a) => a.slug)}::text[])
             WITH ORDINALITY AS f(id, slug, ord)
        CROSS JOIN LATERAL (
          SELECT id FROM accounts WHERE slug = f.slug AND id <> f.id LIMIT 1
        ) a`;
    for (const row of rows) {
      const index = start + row.ord - 1;
      if (accountIds.has(row.id)) {
        result.parked.accounts.push(row.id);
      } else {
        result.issues.push({
          path: `accounts[${index}].slug`,
          message: `slug ${JSON.stringify(data.accounts[index]?.slug)} is already used by account ${JSON.stringify(row.id)} in the database`,
        });
      }
    }
  }

  for (const collection of ["events", "guides"] as const) {
    const items: readonly (FixtureEvent | FixtureGuide)[] = data[collection];
    if (items.length === 0) continue;
    const table = TEAM_ITEM_TABLE[collection];
    const teamIds = [...new Set(items.map((item) => item.team_id))];
    // A first load into empty teams (the bulk case) has nothing to collide with: skip the scan.
    const [found] = await tx.$queryRaw<{ occupied: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM ${table} WHERE team_id = ANY(${teamIds}::text[])) AS occupied`;
    if (!found?.occupied) continue;

    const ids = new Set(items.map((item) => item.id));
    const what = collection === "events" ? "event" : "guide";
    for (let start = 0; start < items.length; start += batchSize) {
      const batch = items.slice(start, start + batchSize);
      const rows = await tx.$queryRaw<{ ord: number; id: string }[]>`
        SELECT f.ord::int AS ord, t.id
          FROM unnest(${batch.map((i) => i.id)}::text[], ${batch.map((i) => i.team_id)}::text[],
                      ${batch.map((i) => i.slug)}::text[]) WITH ORDINALITY AS f(id, team_id, slug, ord)
          CROSS JOIN LATERAL (
            SELECT id FROM ${table} WHERE team_id = f.team_id AND slug = f.slug AND id <> f.id LIMIT 1
          ) t`;
      for (const row of rows) {
        const index = start + row.ord - 1;
        const item = items[index];
        if (ids.has(row.id)) {
          result.parked[collection].push(row.id);
        } else {
          result.issues.push({
            path: `${collection}[${index}].slug`,
            message: `slug ${JSON.stringify(item?.slug)} is already used by ${what} ${JSON.stringify(row.id)} of team ${JSON.stringify(item?.team_id)} in the database`,
          });
        }
      }
    }
  }
  return result;
}

async function parkSlugs(tx: Tx, table: Prisma.Sql, ids: readonly string[], batchSize: number): Promise<void> {
  for (const batch of chunks(ids, batchSize)) {
    await tx.$executeRaw`
      UPDATE ${table} SET slug = ${PARKED_SLUG_PREFIX} || id WHERE id = ANY(${batch}::text[])`;
  }
}

// Timestamps travel as the validated "YYYY-MM-DDTHH:MM:SSZ" strings and are cast by PostgreSQL
// (::timestamptz): exact to the second, whatever the session time zone, with no Date per value.
// The `IS DISTINCT FROM` guards leave identical rows untouched, so reloading a big file writes
// (and bloats) nothing.

function upsertAccounts(batch: readonly FixtureAccount[]): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO accounts (id, slug, name, partner, profile_image_url, cover_image_url)
    SELECT * FROM unnest(
      ${batch.map((a) => a.id)}::text[], ${batch.map((a) => a.slug)}::text[], ${batch.map((a) => a.name)}::text[],
      ${batch.map((a) => a.partner)}::boolean[], ${batch.map((a) => a.profile_image_url)}::text[],
      ${batch.map((a) => a.cover_image_url)}::text[])
    ON CONFLICT (id) DO UPDATE SET
      slug = EXCLUDED.slug, name = EXCLUDED.name, partner = EXCLUDED.partner,
      profile_image_url = EXCLUDED.profile_image_url, cover_image_url = EXCLUDED.cover_image_url
    WHERE (accounts.slug, accounts.name, accounts.partner, accounts.profile_image_url, accounts.cover_image_url)
          IS DISTINCT FROM
          (EXCLUDED.slug, EXCLUDED.name, EXCLUDED.partner, EXCLUDED.profile_image_url, EXCLUDED.cover_image_url)`;
}

function upsertTeams(batch: readonly FixtureTeam[]): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO teams (id, name)
    SELECT * FROM unnest(${batch.map((t) => t.id)}::text[], ${batch.map((t) => t.name)}::text[])
    ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name
    WHERE teams.name IS DISTINCT FROM EXCLUDED.name`;
}

function upsertUsers(batch: readonly FixtureUser[]): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO users (id, name, team_id)
    SELECT * FROM unnest(
      ${batch.map((u) => u.id)}::text[], ${batch.map((u) => u.name)}::text[], ${batch.map((u) => u.team_id)}::text[])
    ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, team_id = EXCLUDED.team_id
    WHERE (users.name, users.team_id) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.team_id)`;
}

/**
 * Keyed by the token's hash; the plaintext never leaves this process. `revoked: true` stamps the
 * time of revocation once (a reload keeps the first stamp); `revoked: false` clears it.
 */
function upsertAccessTokens(batch: readonly FixtureAccessToken[]): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO access_tokens (token_hash, user_id, client_id, expires_at, revoked_at)
    SELECT f.token_hash, f.user_id, f.client_id, f.expires_at, CASE WHEN f.revoked THEN now() END
      FROM unnest(
        ${batch.map((t) => hashToken(t.token))}::text[], ${batch.map((t) => t.user_id)}::text[],
        ${batch.map((t) => t.client_id)}::text[], ${batch.map((t) => t.expires_at)}::timestamptz[],
        ${batch.map((t) => t.revoked)}::boolean[]) AS f(token_hash, user_id, client_id, expires_at, revoked)
    ON CONFLICT (token_hash) DO UPDATE SET
      user_id = EXCLUDED.user_id, client_id = EXCLUDED.client_id, expires_at = EXCLUDED.expires_at,
      revoked_at = CASE WHEN EXCLUDED.revoked_at IS NULL THEN NULL
                        ELSE COALESCE(access_tokens.revoked_at, EXCLUDED.revoked_at) END
    WHERE (access_tokens.user_id, access_tokens.client_id, access_tokens.expires_at, access_tokens.revoked_at IS NULL)
          IS DISTINCT FROM
          (EXCLUDED.user_id, EXCLUDED.client_id, EXCLUDED.expires_at, EXCLUDED.revoked_at IS NULL)`;
}

interface PasswordChange {
  userId: string;
  /** null: the user can no longer log in on the authorization server. */
  passwordHash: string | null;
}

type HashedClient = Omit<FixtureOAuthClient, "client_secret"> & { secretHash: string | null };

/**
 * Hashes the file's passwords and client secrets. A stored hash that already matches is kept, so
 * reloading the same file leaves those rows as they are (a fresh salt would rewrite them each time).
 */
async function hashFixtureSecrets(
  prisma: PrismaClient,
  data: FixtureFile,
): Promise<{ passwords: PasswordChange[]; clients: HashedClient[] }> {
  const withPassword = data.users.filter((user) => user.password !== undefined);
  const clients = data.oauth_clients ?? [];
  const [storedPasswords, storedSecrets] = await Promise.all([
    prisma.user.findMany({
      where: { id: { in: withPassword.map((u) => u.id) } },
      select: { id: true, passwordHash: true },
    }),
    prisma.oAuthClient.findMany({
      where: { clientId: { in: clients.map((c) => c.client_id) } },
      select: { clientId: true, secretHash: true },
    }),
  ]);
  const passwordHashes = new Map(storedPasswords.map((u) => [u.id, u.passwordHash]));
  const secretHashes = new Map(storedSecrets.map((c) => [c.clientId, c.secretHash]));
  const rehash = async (secret: string | null | undefined, stored: string | null | undefined) => {
    if (secret == null) return null;
    if (stored != null && (await verifySecret(secret, stored))) return stored;
    return hashSecret(secret);
  };
  return {
    passwords: await Promise.all(
      withPassword.map(async (user) => ({
        userId: user.id,
        passwordHash: await rehash(user.password, passwordHashes.get(user.id)),
      })),
    ),
    clients: await Promise.all(
      clients.map(async ({ client_secret, ...client }) => ({
        ...client,
        secretHash: await rehash(client_secret, secretHashes.get(client.client_id)),
      })),
    ),
  };
}

/** Only for users whose entry has a `password` key: an absent key leaves the stored hash alone. */
function setPasswords(batch: readonly PasswordChange[]): Prisma.Sql {
  return Prisma.sql`
    UPDATE users SET password_hash = f.password_hash
      FROM unnest(${batch.map((p) => p.userId)}::text[], ${batch.map((p) => p.passwordHash)}::text[])
           AS f(id, password_hash)
     WHERE users.id = f.id AND users.password_hash IS DISTINCT FROM f.password_hash`;
}

function upsertOAuthClients(batch: readonly HashedClient[]): Prisma.Sql {
  // redirect_uris is an array per row, which unnest() would flatten: one VALUES row per client.
  const rows = batch.map((c) => Prisma.sql`(${c.client_id}, ${c.name}, ${c.secretHash}, ${c.redirect_uris}::text[])`);
  return Prisma.sql`
    INSERT INTO oauth_clients (client_id, name, secret_hash, redirect_uris)
    VALUES ${Prisma.join(rows)}
    ON CONFLICT (client_id) DO UPDATE SET
      name = EXCLUDED.name, secret_hash = EXCLUDED.secret_hash, redirect_uris = EXCLUDED.redirect_uris
    WHERE (oauth_clients.name, oauth_clients.secret_hash, oauth_clients.redirect_uris)
          IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.secret_hash, EXCLUDED.redirect_uris)`;
}

function upsertEvents(batch: readonly FixtureEvent[]): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO events (id, team_id, account_id, slug, name, description, cover_url, duration_seconds,
                        scheduled_at, live_at, completed_at, canceled_at, offer_replay_purchase,
                        price_in_cents, currency)
    SELECT * FROM unnest(
      ${batch.map((e) => e.id)}::text[], ${batch.map((e) => e.team_id)}::text[],
      ${batch.map((e) => e.account_id)}::text[], ${batch.map((e) => e.slug)}::text[],
      ${batch.map((e) => e.name)}::text[], ${batch.map((e) => e.description)}::text[],
      ${batch.map((e) => e.cover_url)}::text[], ${batch.map((e) => e.duration_seconds)}::int[],
      ${batch.map((e) => e.scheduled_at)}::timestamptz[], ${batch.map((e) => e.live_at)}::timestamptz[],
      ${batch.map((e) => e.completed_at)}::timestamptz[], ${batch.map((e) => e.canceled_at)}::timestamptz[],
      ${batch.map((e) => e.offer_replay_purchase)}::boolean[], ${batch.map((e) => e.price.value_in_cents)}::int[],
      ${batch.map((e) => e.price.currency)}::text[])
    ON CONFLICT (id) DO UPDATE SET
      team_id = EXCLUDED.team_id, account_id = EXCLUDED.account_id, slug = EXCLUDED.slug, name = EXCLUDED.name,
      description = EXCLUDED.description, cover_url = EXCLUDED.cover_url,
      duration_seconds = EXCLUDED.duration_seconds, scheduled_at = EXCLUDED.scheduled_at,
      live_at = EXCLUDED.live_at, completed_at = EXCLUDED.completed_at, canceled_at = EXCLUDED.canceled_at,
      offer_replay_purchase = EXCLUDED.offer_replay_purchase, price_in_cents = EXCLUDED.price_in_cents,
      currency = EXCLUDED.currency
    WHERE (events.team_id, events.account_id, events.slug, events.name, events.description, events.cover_url,
           events.duration_seconds, events.scheduled_at, events.live_at, events.completed_at, events.canceled_at,
           events.offer_replay_purchase, events.price_in_cents, events.currency)
          IS DISTINCT FROM
          (EXCLUDED.team_id, EXCLUDED.account_id, EXCLUDED.slug, EXCLUDED.name, EXCLUDED.description,
           EXCLUDED.cover_url, EXCLUDED.duration_seconds, EXCLUDED.scheduled_at, EXCLUDED.live_at,
           EXCLUDED.completed_at, EXCLUDED.canceled_at, EXCLUDED.offer_replay_purchase, EXCLUDED.price_in_cents,
           EXCLUDED.currency)`;
}

function upsertGuides(batch: readonly FixtureGuide[]): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO guides (id, team_id, account_id, slug, name, description, cover_url, published_at,
                        price_in_cents, currency)
    SELECT * FROM unnest(
      ${batch.map((g) => g.id)}::text[], ${batch.map((g) => g.team_id)}::text[],
      ${batch.map((g) => g.account_id)}::text[], ${batch.map((g) => g.slug)}::text[],
      ${batch.map((g) => g.name)}::text[], ${batch.map((g) => g.description)}::text[],
      ${batch.map((g) => g.cover_url)}::text[], ${batch.map((g) => g.published_at)}::timestamptz[],
      ${batch.map((g) => g.price.value_in_cents)}::int[], ${batch.map((g) => g.price.currency)}::text[])
    ON CONFLICT (id) DO UPDATE SET
      team_id = EXCLUDED.team_id, account_id = EXCLUDED.account_id, slug = EXCLUDED.slug, name = EXCLUDED.name,
      description = EXCLUDED.description, cover_url = EXCLUDED.cover_url, published_at = EXCLUDED.published_at,
      price_in_cents = EXCLUDED.price_in_cents, currency = EXCLUDED.currency
    WHERE (guides.team_id, guides.account_id, guides.slug, guides.name, guides.description, guides.cover_url,
           guides.published_at, guides.price_in_cents, guides.currency)
          IS DISTINCT FROM
          (EXCLUDED.team_id, EXCLUDED.account_id, EXCLUDED.slug, EXCLUDED.name, EXCLUDED.description,
           EXCLUDED.cover_url, EXCLUDED.published_at, EXCLUDED.price_in_cents, EXCLUDED.currency)`;
}
