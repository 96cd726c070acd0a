import type { Database } from "@community/db";
import { EVENTS_LIST } from "@community/db/lists";
import type { AppConfig } from "../config/config";
import { MetricsService } from "../metrics/metrics.service";
import type { ChangeWaits } from "./change-waits";
import { ListChangesService } from "./list-changes.service";
import { SignedTokens } from "./signed-tokens";

/** Prisma clients that answer the membership statement, and a change statement with `status`. */
function fakeDatabase(status: { replica: "ok" | "unknown"; primary: "ok" | "unknown" }) {
  const asked: string[] = [];
  const queryable = (name: "replica" | "primary") => ({
    query: async (text: string) => {
      if (text.includes("FROM users")) {
        return { rows: [{ id: "user_a", team_id: "team_a", team_since: 0, now: Date.now() / 1000 }] };
      }
      if (text.includes("AS state FROM team_list_stats")) return { rows: [{ state: "10.5" }] };
      asked.push(name);
      return {
        rows: [
          {
            status: status[name],
            round: "12.7",
            current_state: "12.7",
            change_version: null,
            change_id: null,
            change_present: null,
          },
        ],
      };
    },
  });
  const primary = queryable("primary");
  const replica = queryable("replica");
  // Prisma's raw queries, as prismaStatements sends them.
  const client = (queryable: typeof primary) => ({
    $queryRawUnsafe: async (text: string) => (await queryable.query(text)).rows,
  });
  const database = {
    pool: primary,
    prisma: client(primary),
    prismaReads: client(replica),
    replica: {},
  } as unknown as Database;
  return { database, asked };
}

describe(ListChangesService.name, () => {
  const tokens = new SignedTokens(Buffer.from("a-secret-of-at-least-thirty-two-characters"));
  const config = { sync: { retentionSeconds: 7 * 86_400 } } as AppConfig;
  const team = { userId: "user_a", teamId: "team_a" };
  // No request here waits: ChangeWaits is never asked.
  const noWaits = {} as ChangeWaits;

  async function since(service: ListChangesService): Promise<string> {
    const body = JSON.parse(
      (await service.find(EVENTS_LIST, team, { since: undefined, perPage: 10, wait: 0 })).json.toString(),
    );
    return body.meta.sync.next;
  }

  it("reads the changes from the replica when it has replayed the token", async () => {
    const { database, asked } = fakeDatabase({ replica: "ok", primary: "ok" });
    const service = new ListChangesService(database, config, tokens, new MetricsService(), noWaits);
    await service.find(EVENTS_LIST, team, { since: await since(service), perPage: 10, wait: 0 });
    expect(asked).toEqual(["replica"]);
  });

  it("asks the primary when the replica does not hold the token's state, never answering from it", async () => {
    const { database, asked } = fakeDatabase({ replica: "unknown", primary: "ok" });
    const service = new ListChangesService(database, config, tokens, new MetricsService(), noWaits);
    const body = JSON.parse(
      (await service.find(EVENTS_LIST, team, { since: await since(service), perPage: 10, wait: 0 })).json.toString(),
    );
    expect(asked).toEqual(["replica", "primary"]);
    expect(body.meta.sync.has_more).toBe(false);
  });
});
