import { type DynamicModule, Global, Module } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "./config";

/** The configuration, loaded and validated before the app is made (see main.ts), for every module. */
@Global()
@Module({})
export class ConfigModule {
  static register(config: AppConfig): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}
