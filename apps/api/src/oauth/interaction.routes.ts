import type { IncomingMessage } from "node:http";
import { type Database, verifySecret } from "@community/db";
import type { IRouter, Request, Response } from "express";
import { OAUTH_PREFIX } from "./authorization-server";
import { callbackPage, consentPage, errorPage, loginPage } from "./interaction-pages";
import type { Provider } from "./oidc-provider.types";

const FORM_LIMIT_BYTES = 8 * 1024;

/** Compared when a user id is unknown, so that unknown and known ids take the same time. */
const DUMMY_HASH = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/**
 * The login and consent pages that oidc-provider sends the browser to (its "interactions").
 * The interaction is bound to a cookie the provider set, so a form posted without it fails.
 */
export function registerInteractionRoutes(app: IRouter, provider: Provider, database: Database): void {
  const base = `${OAUTH_PREFIX}/interaction/:uid`;

  app.get(base, async (req, res) => {
    await handle(res, async () => {
      const details = await provider.interactionDetails(req, res);
      const client = await provider.Client.find(String(details.params.client_id));
      const clientName = client?.clientName ?? String(details.params.client_id);
      if (details.prompt.name === "login") {
        return sendHtml(res, 200, loginPage(details.uid, clientName));
      }
      const accountId = details.session?.accountId ?? "";
      const user = await database.prisma.user.findUnique({ where: { id: accountId }, select: { name: true } });
      return sendHtml(
        res,
        200,
        consentPage(details.uid, clientName, user?.name ?? accountId, requestedScopes(details)),
      );
    });
  });

  app.post(`${base}/login`, async (req, res) => {
    await handle(res, async () => {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name !== "login") return sendHtml(res, 400, errorPage("This sign-in is no longer pending."));
      const form = await readForm(req);
      const userId = form.get("username")?.trim() ?? "";
      const password = form.get("password") ?? "";
      const user = await database.prisma.user.findUnique({ where: { id: userId }, select: { passwordHash: true } });
      const valid = await verifySecret(password, user?.passwordHash ?? DUMMY_HASH);
      if (!valid || user?.passwordHash == null) {
        const client = await provider.Client.find(String(details.params.client_id));
        const name = client?.clientName ?? String(details.params.client_id);
        return sendHtml(res, 401, loginPage(details.uid, name, "Unknown user id or wrong password.", userId));
      }
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: userId } },
        { mergeWithLastSubmission: false },
      );
    });
  });

  app.post(`${base}/confirm`, async (req, res) => {
    await handle(res, async () => {
      const details = await provider.interactionDetails(req, res);
      const accountId = details.session?.accountId;
      if (details.prompt.name !== "consent" || accountId === undefined) {
        return sendHtml(res, 400, errorPage("This consent is no longer pending."));
      }
      const clientId = String(details.params.client_id);
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
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    });
  });

  app.post(`${base}/abort`, async (req, res) => {
    await handle(res, async () => {
      await provider.interactionFinished(
        req,
        res,
        { error: "access_denied", error_description: "The user denied the request" },
        { mergeWithLastSubmission: false },
      );
    });
  });

  app.get(`${OAUTH_PREFIX}/callback`, (req, res) => {
    sendHtml(res, 200, callbackPage(new URL(req.originalUrl, "http://x").searchParams));
  });
}

function requestedScopes(details: Awaited<ReturnType<Provider["interactionDetails"]>>): string[] {
  return String(details.params.scope ?? "")
    .split(" ")
    .filter(Boolean);
}

/** Interaction failures (expired, unknown or replayed) become an error page, never a stack trace. */
async function handle(res: Response, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (res.headersSent) return;
    const known = error instanceof Error && "statusCode" in error && typeof error.statusCode === "number";
    const message = known ? (error as Error & { error_description?: string }).error_description : undefined;
    sendHtml(res, known ? 400 : 500, errorPage(message ?? "The sign-in could not be completed."));
  }
}

function sendHtml(res: Response, status: number, html: string): void {
  res
    .status(status)
    .set({
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    })
    .send(html);
}

/** The api runs without a body parser; these small forms are read here. */
async function readForm(req: Request | IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > FORM_LIMIT_BYTES) throw Object.assign(new Error("form too large"), { statusCode: 413 });
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}
