import { Logger, type OnApplicationShutdown } from "@nestjs/common";
import Redis from "ioredis";
import type { AppConfig } from "../config/config";

/**
 * The Redis connection of the rate limiter. Commands fail fast while Redis is unreachable
 * (no offline queue, one retry) so that a Redis outage never stalls requests.
 */
export class RedisConnection implements OnApplicationShutdown {
  private readonly logger = new Logger("Redis");
  readonly client: Redis;

  constructor(url: string, keyPrefix: string) {
    this.client = new Redis(url, {
      keyPrefix,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
    });
    this.client.on("error", (error: Error) => this.logger.warn(`redis: ${error.message}`));
  }

  static async open(config: AppConfig & { redisUrl: string }): Promise<RedisConnection> {
    const connection = new RedisConnection(config.redisUrl, config.redisKeyPrefix);
    await connection.client.connect().catch((error: Error) => {
      connection.logger.warn(`redis not reachable at start (${error.message}); retrying in the background`);
    });
    return connection;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
