import { Module } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { RedisConnection } from "./redis.provider";

/** Provides the Redis connection when REDIS_URL is set, and null otherwise. */
@Module({
  providers: [
    {
      provide: RedisConnection,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.redisUrl === undefined ? null : RedisConnection.open({ ...config, redisUrl: config.redisUrl }),
    },
  ],
  exports: [RedisConnection],
})
export class RedisModule {}
