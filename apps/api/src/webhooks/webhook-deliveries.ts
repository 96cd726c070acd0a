import type { Pool, PoolClient } from "pg";

/** A notice claimed for one attempt: what to send, where, and with which secrets. */
export interface ClaimedNotice {
  id: string;
  subscriptionId: string;
  body: string;
  url: string;
  receiver: string;
  /** This attempt's number (1 for the first). */
  attempt: number;
  secret: unknown;
  previousSecret: unknown;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
}

/** Why a pending notice will not be sent: its subscription ended, or its user's standing did. */
export type Unsendable = { reason: "gone" } | { reason: "inactive" } | { reason: "revoked"; why: string };

/** How an attempt ended, as the delivery log keeps it. */
export type AttemptResult =
  | { kind: "delivered"; status: number }
  | { kind: "gone" }
  | { kind: "retry"; status: number | null; error: string | null; delaySeconds: number }
  | { kind: "exhausted"; status: number | null; error: string | null };

/**
 * Why an active subscription must stop, in SQL over `s` (webhook_subscriptions) and `u` (its
 * user), or NULL while it stands: its user left the team it was made for, or what its creating
 * token rested on is gone (webhook_credential_stands: the grant or its client, or every valid
 * token of the client). One expression for the claim of an attempt and for the sweep.
 */
const FALLEN_REASON_SQL = `CASE
    WHEN u.team_id IS DISTINCT FROM s.team_id THEN 'the user left the team'
    WHEN webhook_credential_stands(s.credential, s.grant_hash, s.user_id, s.client_id) THEN NULL
    WHEN s.credential = 'grant' THEN 'the grant was revoked or the client deleted'
    ELSE 'the user holds no valid token of the client'
  END`;

const CLAIM_SQL = `
SELECT d.id, d.subscription_id, d.body, d.state, d.created_at,
       s.url, s.receiver, s.status, s.secret, s.previous_secret, s.previous_secret_expires_at,
       ${FALLEN_REASON_SQL} AS fallen
  FROM webhook_deliveries d
  JOIN webhook_subscriptions s ON s.id = d.subscription_id
  JOIN users u ON u.id = s.user_id
 WHERE d.id = $1
   FOR UPDATE OF d, s`;

interface ClaimRow {
  id: string;
  subscription_id: string;
  body: string;
  state: string;
  created_at: Date;
  url: string;
  receiver: string;
  status: string;
  fallen: string | null;
  secret: unknown;
  previous_secret: unknown;
  previous_secret_expires_at: Date | null;
}

/**
 * The delivery log as a state machine, in SQL over node-postgres, each step one short
 * transaction (no request to a receiver is ever made inside one):
 *
 * - claim: a pending notice of an active subscription whose user still stands (still in the team
 *   the notice speaks of, the grant or a token of the client still valid) is marked in flight and
 *   its attempt counted; otherwise the subscription is revoked and its pending notices fail.
 * - finish: the attempt's result is written: delivered (and, if a commit came during the attempt,
 *   a new notice of that list is made due), retried later (its job rescheduled), or failed (410, or
 *   the end of the schedule: the subscription is disabled).
 */
export class WebhookDeliveries {
  constructor(private readonly pool: Pool) {}

  async claim(id: string): Promise<ClaimedNotice | Unsendable> {
    return this.transaction(async (client) => {
      const row = (await client.query<ClaimRow>(CLAIM_SQL, [id])).rows[0];
      if (row === undefined || row.state !== "pending") return { reason: "gone" };
      if (row.status !== "active") {
        await this.failPending(client, row.subscription_id, `the subscription is ${row.status}`);
        return { reason: "inactive" };
      }
      const why = row.fallen;
      if (why !== null) {
        await client.query(
          `UPDATE webhook_subscriptions SET status = 'revoked', status_reason = $2, status_changed_at = now() WHERE id = $1`,
          [row.subscription_id, why],
        );
        await this.failPending(client, row.subscription_id, `the subscription was revoked: ${why}`);
        return { reason: "revoked", why };
      }
      const attempt = await client.query<{ attempts: number }>(
        `UPDATE webhook_deliveries
            SET in_flight = true, changed_in_flight = false, attempts = attempts + 1, last_attempt_at = now()
          WHERE id = $1 RETURNING attempts`,
        [id],
      );
      return {
        id: row.id,
        subscriptionId: row.subscription_id,
        body: row.body,
        url: row.url,
        receiver: row.receiver,
        attempt: attempt.rows[0]?.attempts ?? 1,
        secret: row.secret,
        previousSecret: row.previous_secret,
        previousSecretExpiresAt: row.previous_secret_expires_at,
        createdAt: row.created_at,
      };
    });
  }

  async finish(notice: ClaimedNotice, result: AttemptResult): Promise<void> {
    await this.transaction(async (client) => {
      switch (result.kind) {
        case "delivered": {
          const { rows } = await client.query<{
            changed_in_flight: boolean;
            team_id: string | null;
            list: string | null;
          }>(
            `UPDATE webhook_deliveries
                SET state = 'delivered', in_flight = false, last_status = $2, last_error = NULL,
                    next_attempt_at = NULL, completed_at = now()
              WHERE id = $1 AND state = 'pending'
          RETURNING changed_in_flight, team_id, list`,
            [notice.id, result.status],
          );
          const done = rows[0];
          if (done?.changed_in_flight === true && done.list !== null && done.team_id !== null) {
            await client.query("SELECT webhook_make_notice($1, $2, $3)", [
              notice.subscriptionId,
              done.team_id,
              done.list,
            ]);
          }
          return;
        }
        case "retry": {
          const { rowCount } = await client.query(
            `UPDATE webhook_deliveries
                SET in_flight = false, last_status = $2, last_error = $3,
                    next_attempt_at = now() + make_interval(secs => $4)
              WHERE id = $1 AND state = 'pending'`,
            [notice.id, result.status, result.error, result.delaySeconds],
          );
          // Failed meanwhile (the subscription ended): nothing more to send.
          if (rowCount === 0) return;
          await client.query(`SELECT webhook_enqueue($1, $2, now() + make_interval(secs => $3), 'replace')`, [
            notice.id,
            notice.receiver,
            result.delaySeconds,
          ]);
          return;
        }
        case "gone":
        case "exhausted": {
          const status = result.kind === "gone" ? 410 : result.status;
          const error = result.kind === "gone" ? "the receiver answered 410 Gone" : result.error;
          await client.query(
            `UPDATE webhook_deliveries
                SET state = 'failed', in_flight = false, last_status = $2, last_error = $3,
                    next_attempt_at = NULL, completed_at = now()
              WHERE id = $1`,
            [notice.id, status, error],
          );
          const why =
            result.kind === "gone"
              ? "the receiver answered 410 Gone"
              : `no 2xx answer after ${notice.attempt} attempts (the end of the retry schedule)`;
          await client.query(
            `UPDATE webhook_subscriptions SET status = 'disabled', status_reason = $2, status_changed_at = now()
              WHERE id = $1 AND status = 'active'`,
            [notice.subscriptionId, why],
          );
          await this.failPending(client, notice.subscriptionId, `the subscription was disabled: ${why}`);
          return;
        }
      }
    });
  }

  /**
   * Revokes the active subscriptions whose user left their team or whose credential no longer
   * stands (a grant revoked, a client deleted, no valid token of the client left), and fails
   * their pending notices. Returns how many it revoked.
   */
  async revokeFallen(): Promise<number> {
    return this.transaction(async (client) => {
      const { rows } = await client.query<{ id: string; why: string }>(
        `WITH fallen AS (
           SELECT s.id, ${FALLEN_REASON_SQL} AS why
             FROM webhook_subscriptions s JOIN users u ON u.id = s.user_id
            WHERE s.status = 'active'
         )
         UPDATE webhook_subscriptions s
            SET status = 'revoked', status_reason = fallen.why, status_changed_at = now()
           FROM fallen
          WHERE s.id = fallen.id AND fallen.why IS NOT NULL
      RETURNING s.id, fallen.why`,
      );
      for (const row of rows) await this.failPending(client, row.id, `the subscription was revoked: ${row.why}`);
      return rows.length;
    });
  }

  private async failPending(client: PoolClient, subscriptionId: string, error: string): Promise<void> {
    await client.query(
      `UPDATE webhook_deliveries
          SET state = 'failed', in_flight = false, last_error = $2, next_attempt_at = NULL, completed_at = now()
        WHERE subscription_id = $1 AND state = 'pending'`,
      [subscriptionId, error],
    );
  }

  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
