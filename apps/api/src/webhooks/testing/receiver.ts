import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { until } from "@community/fixtures/testing";
import { appForSuite } from "../../testing/suite-app";

/** A notice as a receiver got it. */
export interface ReceivedNotice {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver answers the next request with: a status and headers, or nothing (hangs). */
export type Answer = { status: number; headers?: Record<string, string> } | "hang";

/**
 * A webhook receiver on loopback for the tests: records every POST and answers each with the
 * next of `answers` (then with `otherwise`, 204 by default). Hanging requests are cut at close.
 */
export class TestReceiver {
  readonly received: ReceivedNotice[] = [];
  readonly answers: Answer[] = [];
  otherwise: Answer = { status: 204 };
  /** Run before a notice is answered (the notice is in flight meanwhile). */
  beforeAnswer: ((notice: ReceivedNotice) => Promise<void>) | undefined;
  private readonly server: Server;

  private constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", async () => {
        const notice = { headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
        this.received.push(notice);
        const answer = this.answers.shift() ?? this.otherwise;
        if (answer === "hang") return;
        await this.beforeAnswer?.(notice).catch(() => undefined);
        if (!response.destroyed) response.writeHead(answer.status, answer.headers).end();
      });
    });
  }

  static async start(): Promise<TestReceiver> {
    const receiver = new TestReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The receiver's URL on 127.0.0.1 (the host the tests allow), with `path`. */
  url(path = "/hook"): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The notices received whose body's type is `type`. */
  ofType(type: string): ReceivedNotice[] {
    return this.received.filter((notice) => (JSON.parse(notice.body) as { type: string }).type === type);
  }

  /** Waits (up to `timeoutMs`) until at least `count` notices of `type` came, and returns them all. */
  async awaitType(type: string, count: number, what: string, timeoutMs = 10_000): Promise<ReceivedNotice[]> {
    return await until(
      () => {
        const notices = this.ofType(type);
        return notices.length >= count && notices;
      },
      what,
      timeoutMs,
    );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A receiver for one describe block: started before its tests, closed after them. */
export function receiverForSuite(): TestReceiver {
  return appForSuite(() => TestReceiver.start());
}
