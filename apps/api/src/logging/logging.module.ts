import { type DynamicModule, Module } from "@nestjs/common";
import { LoggerModule } from "nestjs-pino";
import type { DestinationStream } from "pino";
import type { AppConfig } from "../config/config";
import { loggerParams } from "./logger-params";

@Module({})
export class LoggingModule {
  static register(config: AppConfig, destination?: DestinationStream): DynamicModule {
    return { module: LoggingModule, imports: [LoggerModule.forRoot(loggerParams(config, destination))] };
  }
}
