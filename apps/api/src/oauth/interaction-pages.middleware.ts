import { Injectable, type NestMiddleware } from "@nestjs/common";
import { urlencoded } from "body-parser";
import type { NextFunction, Request, Response } from "express";
import { PROBLEM_PAGE, type ProblemPage } from "../common/problem.filter";
import { PayloadTooLargeException } from "../security/security.problems";
import { errorPage, PAGE_CONTENT_SECURITY_POLICY } from "./interaction-pages";
import { InvalidFormException } from "./oauth.problems";

/** The sign-in forms hold two short fields. */
export const FORM_LIMIT_BYTES = 8 * 1024;

const PAGE_HEADERS = {
  "Cache-Control": "no-store",
  "Content-Security-Policy": PAGE_CONTENT_SECURITY_POLICY,
};

const parseForm = urlencoded({ extended: false, limit: FORM_LIMIT_BYTES });

const showProblem: ProblemPage = (problem) => errorPage(problem.detail);

/**
 * Runs before the sign-in pages: they are never cached, load nothing from elsewhere, show their
 * problems as a page (ProblemFilter) and get their form bodies parsed, since the api has no global
 * body parser.
 */
@Injectable()
export class InteractionPagesMiddleware implements NestMiddleware {
  async use(request: Request, response: Response, next: NextFunction): Promise<void> {
    response.set(PAGE_HEADERS);
    response.locals[PROBLEM_PAGE] = showProblem;
    // Thrown, not passed to next(), so that the problem filter answers a bad body.
    await new Promise<void>((resolve, reject) => {
      parseForm(request, response, (error?: unknown) => (error === undefined ? resolve() : reject(formProblem(error))));
    });
    next();
  }
}

function formProblem(error: unknown): Error {
  const { status, message } = error as { status?: number; message?: string };
  if (status === 413) return new PayloadTooLargeException(FORM_LIMIT_BYTES);
  return new InvalidFormException([{ parameter: "body", message: message ?? "cannot be read" }]);
}
