import { databaseFailure } from "@community/db";
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject, Logger } from "@nestjs/common";
import type { Request, Response } from "express";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { boundedPath } from "../logging/bounded-path";
import { logRequestAtDebug } from "../logging/request-log-level";
import { problemInstance } from "./problem-instance";
import {
  COMMON_PROBLEMS,
  InternalProblemException,
  NotFoundProblemException,
  ProblemException,
  ServiceUnavailableException,
} from "./problems";
import { redactSecretPaths } from "./secret-paths";

export const PROBLEM_CONTENT_TYPE = "application/problem+json; charset=utf-8";

/**
 * Where a route serves pages to a person (the sign-in pages), it puts a renderer under this key of
 * `response.locals`, and its problems are written as that HTML page instead of JSON.
 */
export const PROBLEM_PAGE = "problemPage";
export type ProblemPage = (problem: { title: string; status: number; detail: string }) => string;

/** The one place that writes error bodies: RFC 9457 problem+json for every failure (or its page). */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemFilter.name);

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.respond(exception, http.getRequest<Request>(), http.getResponse<Response>());
  }

  /** Answers `exception` as a problem; also called outside the exception flow (the request timeout). */
  respond(exception: unknown, request: Request, response: Response): void {
    if (response.headersSent) {
      // Already answered, typically by the request timeout while the handler still ran.
      response.end();
      return;
    }
    const problem = this.toProblem(exception, request, response);
    for (const [name, value] of Object.entries(problem.headers)) {
      response.setHeader(name, value);
    }
    const page = response.locals?.[PROBLEM_PAGE] as ProblemPage | undefined;
    if (page !== undefined) {
      response.status(problem.status).type("text/html; charset=utf-8").send(page(problem));
      return;
    }
    response
      .status(problem.status)
      .type(PROBLEM_CONTENT_TYPE)
      .send(this.body(problem, problemInstance(redactSecretPaths(request.originalUrl))));
  }

  /** The problem+json body of `problem`; `instance` never carries a query parameter but page and per_page. */
  body(problem: ProblemException, instance: string): string {
    return JSON.stringify({
      type: `${this.config.problemBaseUrl}/${problem.type}`,
      title: problem.title,
      status: problem.status,
      detail: problem.detail,
      instance,
      ...problem.extensions(),
    });
  }

  private toProblem(exception: unknown, request: Request, response: Response): ProblemException {
    if (exception instanceof ProblemException) {
      return exception;
    }
    const failure = databaseFailure(exception);
    if (failure === "circuit-open") {
      // Known outage: the breaker logs its state and a periodic count of refusals instead.
      logRequestAtDebug(response);
      return new ServiceUnavailableException(this.config.retryAfterSeconds);
    }
    if (failure !== undefined) {
      // One line, no stack: the cause is outside the code (an outage or an overloaded database).
      const reason = exception instanceof Error ? exception.message : String(exception);
      this.logger.warn(
        `database ${failure} during ${request.method} ${boundedPath(redactSecretPaths(request.path))}: ${reason}`,
      );
      return new ServiceUnavailableException(
        this.config.retryAfterSeconds,
        failure === "saturated" ? "The database is too busy to answer in time; try again later" : undefined,
      );
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      // Raised by the framework itself: unknown routes, body parser errors.
      const status = exception.getStatus();
      if (status === 404) return NotFoundProblemException.at(request);
      return new ProblemException(
        status === 413 ? COMMON_PROBLEMS.PayloadTooLarge : COMMON_PROBLEMS.BadRequest,
        exception.message,
      );
    }
    this.logger.error(
      `unexpected failure during ${request.method} ${boundedPath(redactSecretPaths(request.path))}`,
      exception instanceof Error ? exception.stack : String(exception),
    );
    return new InternalProblemException();
  }
}
