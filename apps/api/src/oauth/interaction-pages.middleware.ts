import { Inject, Injectable, type NestMiddleware } from "@nestjs/common";
import { urlencoded } from "body-parser";
import type { NextFunction, Request, Response } from "express";
import { PROBLEM_PAGE, type ProblemPage } from "../common/problem.filter";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { PayloadTooLargeException, TooManyFormFieldsException } from "../security/security.problems";
import { errorPage, PAGE_CONTENT_SECURITY_POLICY } from "./interaction-pages";
import { InteractionFailedException, InvalidFormException } from "./oauth.problems";

/** The sign-in forms hold two short fields. */
export const FORM_LIMIT_BYTES = 8 * 1024;

const PAGE_HEADERS = {
  "Cache-Control": "no-store",
  "Content-Security-Policy": PAGE_CONTENT_SECURITY_POLICY,
  // Instead of helmet's no-referrer, under which a browser's own-origin post says `Origin: null`:
  // a browser without Sec-Fetch-Site then still names this origin, and no other site learns a URL.
  "Referrer-Policy": "same-origin",
};

/** body-parser's default, written down: a form with more fields is refused (413), never cut. */
export const FORM_MAX_FIELDS = 1_000;

const parseForm = urlencoded({ extended: false, limit: FORM_LIMIT_BYTES, parameterLimit: FORM_MAX_FIELDS });

const showProblem: ProblemPage = (problem) => errorPage(problem.detail);

/** Sec-Fetch-Site values of a request that a page of this origin (or the user) started. */
const OWN_SITE = new Set(["same-origin", "none"]);

/**
 * Runs before the sign-in pages: they are never cached, load nothing from elsewhere, show their
 * problems as a page (ProblemFilter) and get their form bodies parsed, since the api has no global
 * body parser. Their forms take posts from their own origin only, and a page of another site (or of
 * another origin of this site) posting with the user's cookies, which SameSite=Lax lets through from
 * the same site, is refused. A browser says where a post comes from in Sec-Fetch-Site, which a page
 * cannot forge; `Origin: null` beside it is what a page under a no-referrer policy sends, not a sign
 * of another site. Browsers without Sec-Fetch-Site are judged by Origin alone. A client sending
 * neither header is not a browser carrying someone's cookies; the provider's cookies still bind the
 * post to the interaction.
 */
@Injectable()
export class InteractionPagesMiddleware implements NestMiddleware {
  private readonly origin: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.origin = new URL(config.oauth.publicUrl).origin;
  }

  async use(request: Request, response: Response, next: NextFunction): Promise<void> {
    response.set(PAGE_HEADERS);
    response.locals[PROBLEM_PAGE] = showProblem;
    if (request.method === "POST" && !this.fromOwnPage(request)) {
      throw new InteractionFailedException("This form was posted from another site; open the sign-in again.");
    }
    // Thrown, not passed to next(), so that the problem filter answers a bad body.
    await new Promise<void>((resolve, reject) => {
      parseForm(request, response, (error?: unknown) => (error === undefined ? resolve() : reject(formProblem(error))));
    });
    next();
  }

  private fromOwnPage(request: Request): boolean {
    const site = request.headers["sec-fetch-site"];
    const origin = request.headers.origin;
    if (site !== undefined)
      return OWN_SITE.has(site) && (origin === undefined || origin === "null" || origin === this.origin);
    return origin === undefined || origin === this.origin;
  }
}

function formProblem(error: unknown): Error {
  const { status, message, type } = error as { status?: number; message?: string; type?: string };
  if (type === "parameters.too.many") return new TooManyFormFieldsException(FORM_MAX_FIELDS);
  if (status === 413) return new PayloadTooLargeException(FORM_LIMIT_BYTES);
  return new InvalidFormException([{ parameter: "body", message: message ?? "cannot be read" }]);
}
