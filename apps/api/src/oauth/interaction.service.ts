import { verifySecret } from "@community/db";
import { Injectable } from "@nestjs/common";
import type { Request, Response } from "express";
import { UserRepository } from "../users/user.repository";
import { AuthorizationServer } from "./authorization-server";
import { LoginThrottle } from "./limits/login-throttle";
import { InteractionFailedException } from "./oauth.problems";
import type { Provider } from "./oidc-provider.types";

/** Compared when a user id is unknown, so that unknown and known ids take the same time. */
const DUMMY_HASH = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

type Details = Awaited<ReturnType<Provider["interactionDetails"]>>;

/** Why a sign-in was refused: a wrong user id or password, or too many attempts (wait that long). */
export type SignInRefusal = { uid: string; clientName: string; retryAfterSeconds?: number };

/** What a page needs to show the pending step. */
export type PendingStep =
  | { prompt: "login"; uid: string; clientName: string }
  | { prompt: "consent"; uid: string; clientName: string; userName: string; scopes: string[] };

/**
 * The sign-in and consent steps ("interactions") that oidc-provider sends the browser to. An
 * interaction is bound to a cookie the provider set, so a form posted without it fails; the
 * provider's own refusals (unknown, expired, replayed) become interaction-failed problems.
 */
@Injectable()
export class InteractionService {
  constructor(
    private readonly server: AuthorizationServer,
    private readonly users: UserRepository,
    private readonly throttle: LoginThrottle,
  ) {}

  async pendingStep(req: Request, res: Response): Promise<PendingStep> {
    const details = await this.details(req, res);
    const clientName = await this.clientName(details);
    if (details.prompt.name === "login") return { prompt: "login", uid: details.uid, clientName };
    const accountId = details.session?.accountId ?? "";
    const user = await this.users.findProfile(accountId);
    return {
      prompt: "consent",
      uid: details.uid,
      clientName,
      userName: user?.name ?? accountId,
      scopes: scopesOf(details),
    };
  }

  /**
   * Finishes the login step when the password matches (the provider then redirects the browser);
   * otherwise returns what the login page shows again. Each attempt counts against the sign-in
   * limits before the password is checked.
   */
  async signIn(
    req: Request,
    res: Response,
    form: { username: string; password: string },
  ): Promise<SignInRefusal | undefined> {
    const details = await this.details(req, res);
    if (details.prompt.name !== "login") throw new InteractionFailedException("This sign-in is no longer pending.");
    const wait = await this.throttle.attempt(form.username, req.ip ?? "unknown");
    if (wait > 0) return { uid: details.uid, clientName: await this.clientName(details), retryAfterSeconds: wait };
    const hash = await this.users.findPasswordHash(form.username);
    const valid = await verifySecret(form.password, hash ?? DUMMY_HASH);
    if (!valid || hash === null) return { uid: details.uid, clientName: await this.clientName(details) };
    await this.finish(req, res, { login: { accountId: form.username } }, false);
    return undefined;
  }

  /** Grants what the client asked for and lets the provider redirect the browser back to it. */
  async confirm(req: Request, res: Response): Promise<void> {
    const details = await this.details(req, res);
    const accountId = details.session?.accountId;
    if (details.prompt.name !== "consent" || accountId === undefined) {
      throw new InteractionFailedException("This consent is no longer pending.");
    }
    const clientId = String(details.params.client_id);
    const provider = await this.server.provider();
    const grant =
      (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ??
      new provider.Grant({ accountId, clientId });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.join(" "));
    }
    await this.finish(req, res, { consent: { grantId: await grant.save() } }, true);
  }

  abort(req: Request, res: Response): Promise<void> {
    return this.finish(req, res, { error: "access_denied", error_description: "The user denied the request" }, false);
  }

  private details(req: Request, res: Response): Promise<Details> {
    return refusalsAsProblems(async () => (await this.server.provider()).interactionDetails(req, res));
  }

  private finish(req: Request, res: Response, result: Record<string, unknown>, merge: boolean): Promise<void> {
    return refusalsAsProblems(async () =>
      (await this.server.provider()).interactionFinished(req, res, result, { mergeWithLastSubmission: merge }),
    );
  }

  private async clientName(details: Details): Promise<string> {
    const clientId = String(details.params.client_id);
    return (await (await this.server.provider()).Client.find(clientId))?.clientName ?? clientId;
  }
}

function scopesOf(details: Details): string[] {
  return String(details.params.scope ?? "")
    .split(" ")
    .filter(Boolean);
}

/** oidc-provider's errors carry a 4xx statusCode and say what went wrong in error_description. */
async function refusalsAsProblems<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const { statusCode, error_description: description } = error as {
      statusCode?: unknown;
      error_description?: unknown;
    };
    if (typeof statusCode === "number" && statusCode < 500) {
      throw new InteractionFailedException(
        typeof description === "string" ? description : "The sign-in could not be completed.",
      );
    }
    throw error;
  }
}
