import { haproxyConfig, parseServerStates } from "./haproxy";
import { type Outcome, percentile, tally } from "./load";

const outcome = (at: number, done: number, status: number, problem503 = false): Outcome => ({
  at,
  done,
  status,
  problem503,
  servedBy: "r1",
});

describe(tally.name, () => {
  const outage = { from: 1_000, to: 2_000 };

  it("accepts 503 problems from requests under way during the outage, including one sent just before it", () => {
    const result = tally(
      [outcome(990, 1_010, 503, true), outcome(1_500, 1_510, 503, true), outcome(1_990, 2_100, 503, true)],
      [outage],
    );
    expect(result).toMatchObject({ requests: 3, ok: 0, expected503: 3, failed: [] });
  });

  it("fails 503 problems outside the outage, 503s without Retry-After, other errors and network errors", () => {
    const result = tally(
      [
        outcome(500, 600, 503, true),
        outcome(2_100, 2_200, 503, true),
        outcome(1_500, 1_510, 503, false),
        outcome(1_500, 1_510, 502),
        outcome(1_500, 1_510, 0),
        outcome(100, 110, 200),
      ],
      [outage],
    );
    expect(result.ok).toBe(1);
    expect(result.expected503).toBe(0);
    expect(result.failed.map((o) => o.status)).toEqual([503, 503, 503, 502, 0]);
  });
});

describe(percentile.name, () => {
  it("takes the nearest rank", () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 99)).toBe(5);
    expect(percentile([7], 99)).toBe(7);
  });
});

describe(parseServerStates.name, () => {
  it("reads the status of each checked server of the replicas backend", () => {
    const csv = [
      "# pxname,svname,qcur,status,weight",
      "api,FRONTEND,,OPEN,",
      "replicas,r1,0,UP,1",
      "replicas,r2,0,DOWN,1",
      "replicas,r3,0,UP 1/2,1",
      "replicas,r1-open,0,no check,1",
      "replicas,BACKEND,0,UP,3",
      "",
    ].join("\n");
    expect(parseServerStates(csv)).toEqual({ r1: "UP", r2: "DOWN", r3: "UP 1/2" });
  });
});

describe(haproxyConfig.name, () => {
  it("checks readiness, retries lost requests on another replica and fails open to unchecked backups", () => {
    const config = haproxyConfig(8080, "/tmp/x.sock", [
      { name: "r1", port: 3001 },
      { name: "r2", port: 3002 },
    ]);
    expect(config).toContain("option httpchk GET /health/ready");
    expect(config).toContain("retry-on conn-failure empty-response response-timeout");
    expect(config).toContain("option redispatch");
    expect(config).toContain("bind 127.0.0.1:8080");
    expect(config).toMatch(/server r1 127\.0\.0\.1:3001 check\n/);
    expect(config).toMatch(/server r2-open 127\.0\.0\.1:3002 backup\n/);
  });
});
