import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "pg";
import { BASE_SECONDS, type ListName, type MixShape, Random, SPAN_SECONDS, teamId, ZipfSampler } from "./mix-workload";
import type { WriteSent } from "./sync-copies";

/** The application_name of the writer's connection: its backend's CPU is not a server's. */
export const WRITER_APPLICATION = "bench-mix-writer";

export interface WriterReport {
  statements: number;
  updates: number;
  inserts: number;
  deletes: number;
  /** Statements per second achieved over the window. */
  rate: number;
}

/** A statement and the item it writes (the team's list and the item's id). */
type Statement = {
  op: "update" | "insert" | "delete";
  sql: string;
  values: unknown[];
  teamId: string;
  list: ListName;
  id: string;
};

/**
 * What another system writing into the tables does: one statement at a time, each its own
 * transaction, at a steady rate. Six in ten change a row (a rename, a cancellation, a reschedule
 * that moves it in the list, a guide published or withdrawn), three insert one, one deletes one it
 * inserted earlier. Rows are chosen like the readers' teams (a Zipf law over team ranks), so the
 * busy teams' pages are the ones invalidated. Deterministic in the seed; inserted ids carry
 * `idPrefix`, so that rounds for different servers never collide.
 */
export class MixWriter {
  private readonly teams: ZipfSampler;

  constructor(
    private readonly client: Client,
    private readonly shape: MixShape,
    private readonly perSecond: number,
  ) {
    this.teams = new ZipfSampler(shape.events.length);
  }

  /** Starts writing; the returned function stops and reports. `onWrite` is told each write as it is sent. */
  start(seed: string, idPrefix: string, onWrite?: (write: WriteSent) => void): () => Promise<WriterReport> {
    const random = new Random(seed);
    const inserted: Array<{ teamId: string; list: ListName; id: string }> = [];
    const report: WriterReport = { statements: 0, updates: 0, inserts: 0, deletes: 0, rate: 0 };
    if (!(this.perSecond > 0)) return async () => report;
    let stopped = false;
    const began = performance.now();
    const loop = (async () => {
      for (let i = 0; !stopped; i++) {
        const due = began + (i * 1000) / this.perSecond;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        if (stopped) break;
        const statement = this.statement(random, i, idPrefix, inserted);
        const { teamId, list, id, op } = statement;
        onWrite?.({ teamId, list, id, op, sentAt: performance.now() });
        await this.client.query(statement.sql, statement.values);
        report.statements++;
        report[`${statement.op}s`]++;
      }
    })();
    return async () => {
      stopped = true;
      await loop;
      report.rate = report.statements / ((performance.now() - began) / 1000);
      return report;
    };
  }

  private statement(
    random: Random,
    seq: number,
    idPrefix: string,
    inserted: Array<{ teamId: string; list: ListName; id: string }>,
  ): Statement {
    const team = this.teams.sample(random);
    const list: ListName = random.next() < 0.7 ? "events" : "guides";
    const op = random.pick<Statement["op"]>([
      ["update", 0.6],
      ["insert", 0.3],
      ["delete", 0.1],
    ]);
    const size = (list === "events" ? this.shape.events : this.shape.guides)[team] as number;
    const index = random.below(size);
    const prefix = list === "events" ? "ev" : "gd";
    const item = { teamId: teamId(team), list, id: `${prefix}_${teamId(team)}_${index}` };
    const when = new Date((BASE_SECONDS - random.below(SPAN_SECONDS)) * 1000);
    if (op === "delete" && inserted.length > 0) {
      const victim = inserted.shift() as { teamId: string; list: ListName; id: string };
      return { op, sql: `DELETE FROM ${victim.list} WHERE id = $1`, values: [victim.id], ...victim };
    }
    if (op === "insert" || op === "delete") {
      const newId = `${prefix}_${teamId(team)}_w${idPrefix}_${seq}`;
      const written = { ...item, id: newId };
      inserted.push(written);
      const slug = `${list === "events" ? "event" : "guide"}-w${idPrefix}-${seq}`;
      const account = `acc_${random.below(200)}`;
      if (list === "events") {
        return {
          op: "insert",
          sql: `INSERT INTO events (id, team_id, account_id, slug, name, description, cover_url, duration_seconds,
                                    scheduled_at, offer_replay_purchase, price_in_cents, currency)
                VALUES ($1, $2, $3, $4, $5, NULL, NULL, 3600, $6, false, 1500, 'EUR')`,
          values: [newId, teamId(team), account, slug, `New event ${seq}`, when],
          ...written,
        };
      }
      return {
        op: "insert",
        sql: `INSERT INTO guides (id, team_id, account_id, slug, name, description, cover_url, published_at,
                                  price_in_cents, currency)
              VALUES ($1, $2, $3, $4, $5, NULL, NULL, $6, 900, 'USD')`,
        values: [newId, teamId(team), account, slug, `New guide ${seq}`, when],
        ...written,
      };
    }
    const { id } = item;
    if (list === "events") {
      return random.pick<Statement>([
        [
          {
            op,
            sql: "UPDATE events SET name = $2 WHERE id = $1",
            values: [id, `Event ${index} (edit ${seq})`],
            ...item,
          },
          2,
        ],
        [
          {
            op,
            sql: "UPDATE events SET canceled_at = CASE WHEN canceled_at IS NULL THEN scheduled_at END WHERE id = $1",
            values: [id],
            ...item,
          },
          1,
        ],
        [
          {
            op,
            sql: "UPDATE events SET scheduled_at = scheduled_at + interval '1 hour' WHERE id = $1",
            values: [id],
            ...item,
          },
          1,
        ],
      ]);
    }
    return random.pick<Statement>([
      [
        { op, sql: "UPDATE guides SET name = $2 WHERE id = $1", values: [id, `Guide ${index} (edit ${seq})`], ...item },
        3,
      ],
      [
        {
          op,
          sql: "UPDATE guides SET published_at = CASE WHEN published_at IS NULL THEN $2::timestamptz END WHERE id = $1",
          values: [id, when],
          ...item,
        },
        1,
      ],
    ]);
  }
}
