import { All, Controller, Next, Req, Res, UseGuards } from "@nestjs/common";
import { SkipThrottle } from "@nestjs/throttler";
import type { NextFunction, Request, Response } from "express";
import { type LabelledRequest, ROUTE_LABEL } from "../logging/route-template";
import { AuthorizationServer, OAUTH_PREFIX } from "./authorization-server";
import { OAuthEndpointLimitGuard } from "./limits/oauth-endpoint-limit.guard";
import { ProviderPaths } from "./provider-paths";

/**
 * Every other route under /oauth (discovery, authorize, token, revocation, JWKS) is the provider's
 * own: handed to it as if it were mounted on /oauth, which is where it reads its mount path from.
 * Registered after InteractionController, whose routes come first. Not under the api's limiter
 * (no bearer token to key on): the authorization and token endpoints have limits of their own.
 */
@Controller("oauth")
@SkipThrottle()
@UseGuards(OAuthEndpointLimitGuard)
export class AuthorizationServerController {
  private paths: ProviderPaths | undefined;

  constructor(private readonly server: AuthorizationServer) {}

  @All("{*path}")
  async forward(@Req() req: Request, @Res() res: Response, @Next() next: NextFunction): Promise<void> {
    const provider = await this.server.provider();
    this.paths ??= new ProviderPaths(provider);
    // Another spelling of a provider route goes on to the api's 404, as on every other route.
    const template = this.paths.templateOf(req.path.slice(OAUTH_PREFIX.length));
    if (template === undefined) return next();
    // The route of the logs and metrics: the provider's template, not this catch-all's.
    (req as LabelledRequest)[ROUTE_LABEL] = OAUTH_PREFIX + template;
    req.url = req.originalUrl.slice(OAUTH_PREFIX.length) || "/";
    // Asked per request: the provider is replaced when the stored keys change.
    await (await this.server.handler())(req, res);
  }
}
