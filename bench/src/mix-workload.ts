import { type RandomGenerator, xoroshiro128plus } from "pure-rand";

/**
 * The mix's data and requests, as pure functions of a scale and a seed: team sizes, users per
 * team, and the stream of requests the clients make. Every server is sent the same stream.
 */

/** Data of the mix at scale 1 (`--mix-scale` multiplies every figure). */
export const FULL_SCALE = {
  teams: 10_000,
  users: 100_000,
  /** Events of the largest team; the team of rank k has about largestTeam / k (a Zipf law, exponent 1). */
  largestTeam: 100_000,
} as const;

export type ListName = "events" | "guides";

export interface MixShape {
  scale: number;
  /** Events of each team, by rank (index 0 is the largest team, `mt_1`). */
  events: number[];
  /** Guides of each team: half its events. */
  guides: number[];
  /** Users of each team, about proportional to the square root of its size, at least one. */
  users: number[];
  /** Index of each team's first user (users are numbered from 0, team by team). */
  firstUser: number[];
  totals: { teams: number; users: number; events: number; guides: number };
}

/** Team and user names as the loader writes them. */
export const teamId = (rank: number) => `mt_${rank + 1}`;
export const userToken = (user: number) => `mix-token-${user}`;

/**
 * Team sizes by a Zipf law: the team of rank k (from 1) holds round(largest / k) events, so at
 * scale 1 the largest holds 100,000, four in five teams hold under 50 and all hold about 980,000.
 * Users follow the square root of a team's size: a large team's members each make more requests.
 */
export function mixShape(scale: number): MixShape {
  if (!(scale > 0 && scale <= 1)) throw new RangeError(`the mix scale must be in (0, 1], got ${scale}`);
  const teamCount = Math.max(2, Math.round(FULL_SCALE.teams * scale));
  const largest = Math.max(10, Math.round(FULL_SCALE.largestTeam * scale));
  const events = Array.from({ length: teamCount }, (_, k) => Math.max(1, Math.round(largest / (k + 1))));
  const guides = events.map((n) => Math.max(1, Math.round(n / 2)));
  const roots = events.map((n) => Math.sqrt(n));
  const rootSum = roots.reduce((a, b) => a + b, 0);
  const wanted = Math.max(teamCount, Math.round(FULL_SCALE.users * scale));
  const users = roots.map((r) => Math.max(1, Math.round((wanted * r) / rootSum)));
  const firstUser: number[] = [];
  let next = 0;
  for (const n of users) {
    firstUser.push(next);
    next += n;
  }
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  return {
    scale,
    events,
    guides,
    users,
    firstUser,
    totals: { teams: teamCount, users: next, events: sum(events), guides: sum(guides) },
  };
}

/** A seeded generator of uniform numbers in [0, 1) (xoroshiro128+ of pure-rand). */
export class Random {
  private readonly generator: RandomGenerator;

  constructor(seed: string) {
    this.generator = xoroshiro128plus(hashSeed(seed));
  }

  /** A uniform number in [0, 1). */
  next(): number {
    return (this.generator.unsafeNext() >>> 0) / 2 ** 32;
  }

  /** A uniform integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** One of `choices`, each with its weight. */
  pick<T>(choices: ReadonlyArray<readonly [T, number]>): T {
    let total = 0;
    for (const [, weight] of choices) total += weight;
    let u = this.next() * total;
    for (const [value, weight] of choices) {
      u -= weight;
      if (u < 0) return value;
    }
    return (choices.at(-1) as readonly [T, number])[0];
  }
}

/** A 32-bit seed from a string (FNV-1a), so that seeds can name what they seed ("22/round 1"). */
function hashSeed(seed: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    hash ^= seed.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

/** Ranks 0..n-1 drawn with probability proportional to 1 / (rank + 1)^exponent. */
export class ZipfSampler {
  private readonly cumulative: Float64Array;

  constructor(
    readonly n: number,
    readonly exponent = 1,
  ) {
    if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`a Zipf law needs n >= 1, got ${n}`);
    this.cumulative = new Float64Array(n);
    let total = 0;
    for (let k = 0; k < n; k++) {
      total += 1 / (k + 1) ** exponent;
      this.cumulative[k] = total;
    }
  }

  /** The probability of rank k. */
  probability(k: number): number {
    const total = this.cumulative[this.n - 1] as number;
    return ((this.cumulative[k] as number) - (k === 0 ? 0 : (this.cumulative[k - 1] as number))) / total;
  }

  sample(random: Random): number {
    const u = random.next() * (this.cumulative[this.n - 1] as number);
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.cumulative[mid] as number) > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** What a client asks for; the state it needs (a tag, a cursor, a sync token) is its own. */
export type RequestKind =
  | "first page"
  | "deeper page"
  | "revalidation"
  | "cursor page"
  | "filtered page"
  | "changes poll";

/** Shares of the kinds of requests (they sum to 1). */
export const REQUEST_SHARES: ReadonlyArray<readonly [RequestKind, number]> = [
  ["first page", 0.3],
  ["deeper page", 0.15],
  ["revalidation", 0.2],
  ["cursor page", 0.1],
  ["filtered page", 0.1],
  ["changes poll", 0.15],
];

export const PER_PAGE_SHARES: ReadonlyArray<readonly [number, number]> = [
  [10, 0.3],
  [25, 0.3],
  [100, 0.4],
];

export interface Intent {
  /** Global user number (its token is userToken(user)). */
  user: number;
  /** Team rank of the user. */
  team: number;
  kind: RequestKind;
  list: ListName;
  perPage: number;
  /** Page number of page mode (1 for a first or filtered page). */
  page: number;
  /** Filter query (`&status=...` or a window), for a filtered page. */
  filter: string;
  /** Whether the client sends `Accept-Encoding: gzip, br` (page mode only: see mixClient). */
  compressed: boolean;
}

/** The base time of the data: items are spread over the year before it. */
export const BASE_SECONDS = Date.UTC(2027, 0, 1) / 1000;
export const SPAN_SECONDS = 365 * 86_400;
const iso = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;

/** Filters a client uses: statuses and time windows of the last week, month or a quarter. */
function filterFor(list: ListName, random: Random): string {
  if (list === "events") {
    return random.pick<string>([
      ["&status=canceled", 1],
      ["&status=live", 1],
      ["&status=scheduled,live", 1],
      [`&scheduled_from=${iso(BASE_SECONDS - 7 * 86_400)}&scheduled_to=${iso(BASE_SECONDS)}`, 1],
      [`&status=completed&scheduled_from=${iso(BASE_SECONDS - 30 * 86_400)}`, 1],
    ]);
  }
  return random.pick<string>([
    ["&status=draft", 1],
    [`&published_from=${iso(BASE_SECONDS - 90 * 86_400)}&published_to=${iso(BASE_SECONDS)}`, 1],
  ]);
}

/** A user number spread evenly over [0, 1) (Fibonacci hashing), to pick a share of users by number. */
const spread = (user: number) => (Math.imul(user + 1, 0x9e3779b9) >>> 0) / 2 ** 32;

/**
 * The stream of requests: the team by a Zipf law over team ranks (so in proportion to team size),
 * then the user by a Zipf law within the team (a few members make most of the team's requests),
 * then the kind, list and page size by their shares. Deterministic in `seed`.
 */
export class IntentStream {
  private readonly random: Random;
  private readonly teams: ZipfSampler;
  private readonly members = new Map<number, ZipfSampler>();

  constructor(
    private readonly shape: MixShape,
    seed: string,
    /** Share of users whose client asks for compressed bodies. */
    private readonly compressedShare = 0.5,
  ) {
    this.random = new Random(seed);
    this.teams = new ZipfSampler(shape.events.length);
  }

  next(): Intent {
    const random = this.random;
    const team = this.teams.sample(random);
    const size = this.shape.users[team] as number;
    let members = this.members.get(size);
    if (members === undefined) {
      members = new ZipfSampler(size);
      this.members.set(size, members);
    }
    const user = (this.shape.firstUser[team] as number) + members.sample(random);
    const kind = random.pick(REQUEST_SHARES);
    const list: ListName = random.next() < 0.7 ? "events" : "guides";
    const perPage = random.pick(PER_PAGE_SHARES);
    const items = (list === "events" ? this.shape.events : this.shape.guides)[team] as number;
    const lastPage = Math.max(1, Math.ceil(items / perPage));
    let page = 1;
    if (kind === "deeper page" && lastPage > 1) {
      // Mostly the next few pages, sometimes anywhere (a jump to the end, a deep link).
      page = random.next() < 0.7 ? 2 + random.below(Math.min(4, lastPage - 1)) : 2 + random.below(lastPage - 1);
    }
    const filter = kind === "filtered page" ? filterFor(list, random) : "";
    // A client's library either asks for compressed bodies or does not: the same for all its requests.
    const compressed = spread(user) < this.compressedShare;
    return { user, team, kind, list, perPage, page, filter, compressed };
  }
}

/** The settings of one `pnpm bench --mix` run (parseMixArgs in mix.ts), read by its report too. */
export interface MixSettings {
  quick: boolean;
  scale: number;
  seed: string;
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  poolMax: number;
  writesPerSecond: number;
  settleSeconds: number;
  /** Share of users whose client sends `Accept-Encoding: gzip, br` on page-mode requests. */
  compressedShare: number;
  /** The largest teams whose two lists each have a copy kept current by long poll (0: none). */
  longPollTeams: number;
  /** `wait` of those copies' long polls, seconds. */
  longPollWaitSeconds: number;
}

/** The user who keeps a team's copies: its last member, the one the request stream draws least. */
export const copyKeeper = (shape: MixShape, team: number) =>
  (shape.firstUser[team] as number) + (shape.users[team] as number) - 1;
