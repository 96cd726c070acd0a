import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "pg";

/** A notice as the receiver got it. */
export interface Received {
  id: string;
  type: string;
  at: number;
}

/**
 * The check's webhook receiver, on loopback: records every notice, and answers 204, or holds the
 * request unanswered while `holding` (a notice then stays in flight at the replica that sends it).
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  holding = false;
  private readonly held: ServerResponse[] = [];
  private readonly server: Server;

  private constructor() {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const type = (() => {
          try {
            return String((JSON.parse(Buffer.concat(chunks).toString("utf8")) as { type?: unknown }).type);
          } catch {
            return "unreadable";
          }
        })();
        this.received.push({ id: String(request.headers["webhook-id"]), type, at: Date.now() });
        if (this.holding) this.held.push(response);
        else response.writeHead(204).end();
      });
    });
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
    // A check that fails midway exits without waiting for it.
    receiver.server.unref();
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Answers from now on, the held requests too (those whose sender is gone are lost with it). */
  release(): void {
    this.holding = false;
    for (const response of this.held.splice(0)) if (!response.destroyed) response.writeHead(204).end();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Subscribes the receiver to the team's events through the balancer; the subscription's id. */
export async function subscribe(base: string, token: string, receiver: WebhookReceiver): Promise<string> {
  const response = await fetch(`${base}/v1/me/community/team/webhooks`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ url: receiver.url, lists: ["events"], description: "scale check" }),
  });
  if (response.status !== 201) throw new Error(`subscribing answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

/** The subscription's notices (pings aside) by state, read at the primary. */
export async function noticeStates(primaryUrl: string, subscription: string): Promise<Record<string, number>> {
  const client = new Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ state: string; n: number }>(
      `SELECT state, count(*)::int AS n FROM webhook_deliveries
        WHERE subscription_id = $1 AND type <> 'webhook.ping' GROUP BY state`,
      [subscription],
    );
    return Object.fromEntries(rows.map((row) => [row.state, row.n]));
  } finally {
    await client.end();
  }
}
