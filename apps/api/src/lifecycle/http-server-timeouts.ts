import type { Server } from "node:http";
import type { AppConfig } from "../config/config";

/**
 * Keep-alive connections outlive the load balancer's idle timeout, so that the balancer, not the
 * api, closes an idle connection: otherwise a request sent just as the api closes it is lost.
 * headersTimeout is longer still (Node counts it from the start of a reused connection's wait).
 */
export function setHttpServerTimeouts(server: Server, config: AppConfig): void {
  server.keepAliveTimeout = config.httpKeepAliveTimeoutMs;
  server.headersTimeout = config.httpHeadersTimeoutMs;
}
