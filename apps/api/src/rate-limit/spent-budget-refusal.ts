import { Injectable } from "@nestjs/common";
import type { Request } from "express";
import { bearerCredential } from "../common/bearer-credential";
import { budgetAddress, FailedAuthBudget } from "./failed-auth-budget";
import { KnownValidTokens } from "./known-valid-tokens";
import { FailedAuthenticationsLimitedException } from "./rate-limit.problems";

/**
 * The refusal of a bearer token that this replica does not know to be valid, sent from an address
 * whose failed-authentication budget is spent: the one check both the request pass (which answers
 * it before the logging context, the routing, the guards and the request line, so that a flood of
 * made-up tokens costs little: bench/README.md, "Refusals") and the rate-limit guard make. While
 * no address is refused it costs a Map's size; then the address is read first, so a request from
 * an address with budget left costs no hash here.
 */
@Injectable()
export class SpentBudgetRefusal {
  /** Requests refused here since start (rate_limit_failed_auth_refused_total). */
  refused = 0;

  constructor(
    private readonly failedAuth: FailedAuthBudget,
    private readonly knownTokens: KnownValidTokens,
  ) {}

  /** The 429 of `request` if its address's budget is spent and its token is not known, else undefined. */
  check(request: Request): FailedAuthenticationsLimitedException | undefined {
    if (!this.failedAuth.refusing) return undefined;
    if (request.headers.authorization === undefined) return undefined;
    const wait = this.failedAuth.refusedFor(budgetAddress(request.ip));
    if (wait === 0) return undefined;
    // Read and hashed once for the request's whole way (the guard and the strategy reuse it).
    const digest = bearerCredential(request)?.digest;
    if (digest === undefined) return undefined;
    if (this.knownTokens.has(digest)) return undefined;
    this.refused += 1;
    return new FailedAuthenticationsLimitedException(wait, this.failedAuth.limit, this.failedAuth.windowSeconds);
  }
}
