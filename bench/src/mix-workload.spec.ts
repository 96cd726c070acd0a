import {
  type Intent,
  IntentStream,
  mixShape,
  PER_PAGE_SHARES,
  Random,
  REQUEST_SHARES,
  type RequestKind,
  ZipfSampler,
} from "./mix-workload";

describe(Random.name, () => {
  it("gives the same numbers for the same seed and others for another seed", () => {
    const draw = (seed: string) => {
      const random = new Random(seed);
      return Array.from({ length: 50 }, () => random.next());
    };
    expect(draw("22/round/0")).toEqual(draw("22/round/0"));
    expect(draw("22/round/0")).not.toEqual(draw("22/round/1"));
    expect(draw("a").every((u) => u >= 0 && u < 1)).toBe(true);
  });
});

describe(ZipfSampler.name, () => {
  it("draws rank k with probability proportional to 1/(k+1)", () => {
    const sampler = new ZipfSampler(100);
    const harmonic = Array.from({ length: 100 }, (_, k) => 1 / (k + 1)).reduce((a, b) => a + b, 0);
    expect(sampler.probability(0)).toBeCloseTo(1 / harmonic, 10);
    expect(sampler.probability(9)).toBeCloseTo(1 / 10 / harmonic, 10);

    const random = new Random("zipf");
    const counts = new Array<number>(100).fill(0);
    const draws = 200_000;
    for (let i = 0; i < draws; i++) {
      const rank = sampler.sample(random);
      counts[rank] = (counts[rank] as number) + 1;
    }
    // Standard error of the share of rank 0 is about 0.001 at this many draws.
    expect((counts[0] as number) / draws).toBeCloseTo(sampler.probability(0), 2);
    expect((counts[1] as number) / draws).toBeCloseTo(sampler.probability(1), 2);
    expect((counts[99] as number) / draws).toBeCloseTo(sampler.probability(99), 2);
    expect(counts.every((c) => c > 0)).toBe(true);
  });

  it("is deterministic in the seed", () => {
    const sampler = new ZipfSampler(10_000);
    const draw = () => {
      const random = new Random("teams");
      return Array.from({ length: 100 }, () => sampler.sample(random));
    };
    expect(draw()).toEqual(draw());
  });
});

describe(mixShape.name, () => {
  it("has the issue's shape at scale 1: 10,000 Zipf-sized teams, about 1M events, 500k guides, 100k users", () => {
    const shape = mixShape(1);
    expect(shape.totals.teams).toBe(10_000);
    expect(shape.events[0]).toBe(100_000);
    expect(shape.events[1]).toBe(50_000);
    expect(shape.events.filter((n) => n < 50).length / 10_000).toBeGreaterThanOrEqual(0.75);
    expect(shape.totals.events).toBeGreaterThan(950_000);
    expect(shape.totals.events).toBeLessThan(1_050_000);
    expect(shape.totals.guides / shape.totals.events).toBeCloseTo(0.5, 1);
    expect(Math.abs(shape.totals.users - 100_000)).toBeLessThan(1_000);
    expect(Math.min(...shape.users)).toBeGreaterThanOrEqual(1);
    // Users are numbered team by team.
    expect(shape.firstUser[1]).toBe(shape.users[0]);
  });

  it("scales down for a quick run and refuses a scale outside (0, 1]", () => {
    const shape = mixShape(0.01);
    expect(shape.totals.teams).toBe(100);
    expect(shape.events[0]).toBe(1_000);
    expect(() => mixShape(0)).toThrow(RangeError);
    expect(() => mixShape(1.5)).toThrow(RangeError);
  });
});

describe(IntentStream.name, () => {
  const shape = mixShape(0.1);

  it("gives every server the same requests for the same seed", () => {
    const take = (seed: string) => {
      const stream = new IntentStream(shape, seed);
      return Array.from({ length: 1_000 }, () => stream.next());
    };
    expect(take("22/round/0")).toEqual(take("22/round/0"));
    expect(take("22/round/0")).not.toEqual(take("22/round/1"));
  });

  it("draws kinds and page sizes by their shares, users of their own team, more per user in large teams", () => {
    const stream = new IntentStream(shape, "shares");
    const draws = 40_000;
    const kinds = new Map<RequestKind, number>();
    const perPage = new Map<number, number>();
    const perTeam = new Map<number, number>();
    const strays: Intent[] = [];
    let compressed = 0;
    for (let i = 0; i < draws; i++) {
      const intent = stream.next();
      kinds.set(intent.kind, (kinds.get(intent.kind) ?? 0) + 1);
      perPage.set(intent.perPage, (perPage.get(intent.perPage) ?? 0) + 1);
      perTeam.set(intent.team, (perTeam.get(intent.team) ?? 0) + 1);
      if (intent.compressed) compressed++;
      const first = shape.firstUser[intent.team] as number;
      if (intent.user < first || intent.user >= first + (shape.users[intent.team] as number)) strays.push(intent);
      const items = (intent.list === "events" ? shape.events : shape.guides)[intent.team] as number;
      const pages = Math.ceil(items / intent.perPage);
      // A deeper page lies past the first and within the list (a list of one page has only page 1).
      if (intent.kind === "deeper page" && (intent.page > pages || (pages > 1 && intent.page < 2))) strays.push(intent);
      if (intent.kind === "filtered page" && !/^&(status|scheduled_from|published_from)=/.test(intent.filter)) {
        strays.push(intent);
      }
    }
    expect(strays).toEqual([]);
    expect(compressed / draws).toBeCloseTo(0.5, 1);
    for (const [kind, share] of REQUEST_SHARES) expect((kinds.get(kind) ?? 0) / draws).toBeCloseTo(share, 1);
    for (const [size, share] of PER_PAGE_SHARES) expect((perPage.get(size) ?? 0) / draws).toBeCloseTo(share, 1);
    // The largest team gets requests in proportion to its size, and each of its users more than a small team's.
    const largest = (perTeam.get(0) ?? 0) / draws;
    expect(largest).toBeCloseTo((shape.events[0] as number) / shape.totals.events, 1);
    const perUser = (team: number) => (perTeam.get(team) ?? 0) / (shape.users[team] as number);
    const smallTeams = Array.from({ length: 100 }, (_, i) => 500 + i);
    const smallPerUser = smallTeams.reduce((sum, team) => sum + perUser(team), 0) / smallTeams.length;
    expect(perUser(0)).toBeGreaterThan(3 * smallPerUser);
  });
});
