import { hashToken } from "@community/db";
import type { Request } from "express";

/** The bearer token of a request and its SHA-256 digest (the form in which tokens are stored and keyed). */
export interface BearerCredential {
  token: string;
  digest: string;
}

/**
 * `Authorization: Bearer <token>`, the scheme in any case (contract section 6), split as
 * passport-http-bearer splits it: the scheme, one space, the token (any other form is refused).
 */
const BEARER = /^bearer ([^ ]+)$/i;

const READ = new WeakMap<object, BearerCredential | null>();

/**
 * The request's bearer token from its Authorization header (never the query string or a body),
 * read and hashed once per request by whichever step asks first: the rate limit, which keys its
 * budgets by the digest before authentication runs, then the bearer strategy, which looks the
 * digest up. Undefined when the request carries no bearer token.
 */
export function bearerCredential(request: Pick<Request, "headers">): BearerCredential | undefined {
  let credential = READ.get(request);
  if (credential === undefined) {
    const token = BEARER.exec(request.headers.authorization ?? "")?.[1];
    credential = token === undefined ? null : { token, digest: hashToken(token) };
    READ.set(request, credential);
  }
  return credential ?? undefined;
}
