import type { Server } from "node:http";
import type { Socket } from "node:net";
import { Logger } from "@nestjs/common";
import { PROBLEM_CONTENT_TYPE, type ProblemFilter } from "../common/problem.filter";
import { COMMON_PROBLEMS, ProblemException as Problem, type ProblemException } from "../common/problems";
import type { AppConfig } from "../config/config";
import {
  MalformedRequestException,
  RequestHeaderTooLargeException,
  RequestHeadTimeoutException,
} from "./security.problems";

/** What Node's HTTP parser reports with `clientError` (llhttp's code and reason). */
interface ParserError extends Error {
  code?: string;
  reason?: string;
}

/**
 * The most header fields a request may carry (Apache's LimitRequestFields), set as the server's
 * maxHeadersCount: Node's parser refuses one more with the overflow of a too large head (431).
 */
export const MAX_HEADER_FIELDS = 100;

/** Node's own limit on a chunk's extensions (not configurable). */
const CHUNK_EXTENSIONS_LIMIT_BYTES = 16_384;

/**
 * The problem of a request head that the HTTP parser refused, by class: too large (431), too slow
 * (408), a chunk extension too large (413), anything else malformed (400). The parser's reason is
 * a fixed phrase of llhttp's and never repeats the bytes it refused.
 */
export function requestHeadProblem(error: ParserError, config: AppConfig): ProblemException {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return new RequestHeaderTooLargeException(config.httpMaxHeaderBytes, MAX_HEADER_FIELDS);
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new RequestHeadTimeoutException(config.httpHeadersTimeoutMs);
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new Problem(
        COMMON_PROBLEMS.PayloadTooLarge,
        `Chunk extensions are limited to ${CHUNK_EXTENSIONS_LIMIT_BYTES} bytes`,
      );
    default:
      return new MalformedRequestException(error.reason ?? error.code ?? "unreadable request");
  }
}

/**
 * Node answers a head it cannot parse with a bare status line (431, 400, 408) before any request
 * exists, so neither Nest nor Express sees it. This answers the same class with a problem+json
 * written to the socket (ProblemFilter's body), then closes the connection, as Node does: the
 * parser cannot resume in the middle of a broken head. The `instance` is `*`: no request was read.
 * It also sets the server's field limit, which that answer names.
 */
export function answerUnreadableRequestHeads(server: Server, filter: ProblemFilter, config: AppConfig): void {
  server.maxHeadersCount = MAX_HEADER_FIELDS;
  const logger = new Logger("RequestHead");
  server.on("clientError", (error: ParserError, socket: Socket) => {
    // A reset connection cannot be answered; one whose response has begun must not get a second.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const problem = requestHeadProblem(error, config);
    // Debug: a flood of broken heads must not flood the log.
    logger.debug(`refused a request head: ${error.code ?? error.message} -> ${problem.status}`);
    const body = filter.body(problem, "*");
    socket.end(
      [
        `HTTP/1.1 ${problem.status} ${problem.title}`,
        `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        "Cache-Control: no-store",
        "X-Content-Type-Options: nosniff",
        "Connection: close",
        "",
        body,
      ].join("\r\n"),
    );
  });
}
