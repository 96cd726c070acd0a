import { All, Controller, Req, Res, UseGuards } from "@nestjs/common";
import { SkipThrottle } from "@nestjs/throttler";
import type { Request, Response } from "express";
import { AuthorizationServer, OAUTH_PREFIX } from "./authorization-server";
import { OAuthEndpointLimitGuard } from "./limits/oauth-endpoint-limit.guard";

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
  constructor(private readonly server: AuthorizationServer) {}

  @All("{*path}")
  async forward(@Req() req: Request, @Res() res: Response): Promise<void> {
    req.url = req.originalUrl.slice(OAUTH_PREFIX.length) || "/";
    // Asked per request: the provider is replaced when the stored keys change.
    await (await this.server.handler())(req, res);
  }
}
