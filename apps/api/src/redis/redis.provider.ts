import { Logger, type OnApplicationShutdown } from "@nestjs/common";
import Redis from "ioredis";
import type { AppConfig } from "../config/config";

/**
 * The Redis connection of the rate limiter. Commands fail fast while Redis is unreachable (no
 * offline queue, one retry) or hung (REDIS_COMMAND_TIMEOUT_MS), so that Redis never stalls a
 * request. It also tracks whether Redis answers: a change is logged once (not per request or per
 * reconnection attempt) and read by readiness and the metrics.
 */
export class RedisConnection implements OnApplicationShutdown {
  private readonly logger = new Logger("Redis");
  readonly client: Redis;
  private answering = true;
  /** Requests served without a rate limit because Redis did not answer. */
  unlimitedRequests = 0;

  constructor(url: string, keyPrefix: string, commandTimeoutMs: number) {
    this.client = new Redis(url, {
      keyPrefix,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      commandTimeout: commandTimeoutMs,
      // disconnect() ends the socket and arms a timer that destroys it if it has not closed by then.
      // It runs only where QUIT failed: Redis unreachable, whose socket closed long ago and never
      // says so again (the timer ran its whole length, holding the process after shutdown), or hung,
      // whose socket would not close cleanly. Neither is worth a wait.
      disconnectTimeout: 0,
    });
    this.client.on("error", (error: Error) => this.failed(error));
    this.client.on("ready", () => this.answered());
  }

  static async open(config: AppConfig & { redisUrl: string }): Promise<RedisConnection> {
    const connection = new RedisConnection(config.redisUrl, config.redisKeyPrefix, config.redisCommandTimeoutMs);
    await connection.client.connect().catch((error: Error) => connection.failed(error));
    return connection;
  }

  /** Whether the last command (or connection attempt) succeeded. */
  get isAnswering(): boolean {
    return this.answering;
  }

  /** A command failed or timed out: logged only when Redis was answering until now. */
  failed(error: Error): void {
    if (!this.answering) return;
    this.answering = false;
    this.logger.warn(`Redis does not answer (${error.message}): requests are served without rate limits until it does`);
  }

  /** A command succeeded: logged only when Redis was not answering until now. */
  answered(): void {
    if (this.answering) return;
    this.answering = true;
    this.logger.log("Redis answers again: rate limits are enforced");
  }

  /** PING within the command timeout; records the outcome. */
  async ping(): Promise<boolean> {
    try {
      await this.client.ping();
      this.answered();
      return true;
    } catch (error) {
      this.failed(error as Error);
      return false;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
