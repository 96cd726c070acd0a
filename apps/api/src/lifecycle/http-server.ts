import { createServer, type Server } from "node:http";
import type { NestApplicationOptions } from "@nestjs/common";
import { ExpressAdapter } from "@nestjs/platform-express";
import type { AppConfig } from "../config/config";

/**
 * Nest's Express adapter, with the HTTP server options Nest does not pass on: the largest request
 * head (`maxHeaderSize`, HTTP_MAX_HEADER_BYTES) is an option of the server, fixed when it is made.
 */
export class ConfiguredExpressAdapter extends ExpressAdapter {
  constructor(private readonly config: Pick<AppConfig, "httpMaxHeaderBytes">) {
    super();
  }

  override initHttpServer(options: NestApplicationOptions): void {
    if (options.httpsOptions !== undefined || options.forceCloseConnections === true) {
      throw new Error("ConfiguredExpressAdapter serves plain HTTP without forceCloseConnections");
    }
    this.setHttpServer(createServer({ maxHeaderSize: this.config.httpMaxHeaderBytes }, this.getInstance()) as Server);
  }
}
