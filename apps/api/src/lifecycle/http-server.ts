import { createServer, type Server } from "node:http";
import type { NestApplicationOptions } from "@nestjs/common";
import { ExpressAdapter } from "@nestjs/platform-express";
import express, { type Express } from "express";
import type { AppConfig } from "../config/config";

/**
 * One spelling per route: guards, limits and metrics compare paths exactly, so `/V1/...` or a
 * trailing slash must not reach a handler under another name. Express reads these settings when it
 * makes its router, on the first `use()`, which Nest's adapter calls in its constructor.
 */
function exactRouting(app: Express): Express {
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  return app;
}

/**
 * Nest's Express adapter, with the HTTP server options Nest does not pass on: the largest request
 * head (`maxHeaderSize`, HTTP_MAX_HEADER_BYTES) is an option of the server, fixed when it is made.
 */
export class ConfiguredExpressAdapter extends ExpressAdapter {
  constructor(private readonly config: Pick<AppConfig, "httpMaxHeaderBytes">) {
    super(exactRouting(express()));
  }

  override initHttpServer(options: NestApplicationOptions): void {
    if (options.httpsOptions !== undefined || options.forceCloseConnections === true) {
      throw new Error("ConfiguredExpressAdapter serves plain HTTP without forceCloseConnections");
    }
    this.setHttpServer(createServer({ maxHeaderSize: this.config.httpMaxHeaderBytes }, this.getInstance()) as Server);
  }
}
