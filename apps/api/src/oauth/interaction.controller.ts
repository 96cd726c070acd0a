import { Body, Controller, Get, Post, Req, Res } from "@nestjs/common";
import { SkipThrottle } from "@nestjs/throttler";
import type { Request, Response } from "express";
import { FormValidationPipe } from "./form-validation.pipe";
import { InteractionService } from "./interaction.service";
import { callbackPage, consentPage, loginPage } from "./interaction-pages";
import { LoginFormDto } from "./login-form.dto";

/**
 * The login and consent pages of the built-in authorization server, and the demo clients' callback.
 * Page headers, form parsing and problems-as-pages come from InteractionPagesMiddleware.
 */
@Controller("oauth")
@SkipThrottle()
export class InteractionController {
  constructor(private readonly interactions: InteractionService) {}

  @Get("interaction/:uid")
  async show(@Req() req: Request, @Res() res: Response): Promise<void> {
    const step = await this.interactions.pendingStep(req, res);
    sendPage(
      res,
      200,
      step.prompt === "login"
        ? loginPage(step.uid, step.clientName)
        : consentPage(step.uid, step.clientName, step.userName, step.scopes),
    );
  }

  @Post("interaction/:uid/login")
  async login(@Req() req: Request, @Res() res: Response, @Body(FormValidationPipe) form: LoginFormDto): Promise<void> {
    const refused = await this.interactions.signIn(req, res, form);
    if (refused === undefined) return;
    const { uid, clientName, retryAfterSeconds } = refused;
    if (retryAfterSeconds === undefined) {
      sendPage(res, 401, loginPage(uid, clientName, "Unknown user id or wrong password.", form.username));
      return;
    }
    res.setHeader("Retry-After", String(retryAfterSeconds));
    const message = `Too many sign-in attempts. Try again in ${retryAfterSeconds} seconds.`;
    sendPage(res, 429, loginPage(uid, clientName, message, form.username));
  }

  @Post("interaction/:uid/confirm")
  confirm(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.interactions.confirm(req, res);
  }

  @Post("interaction/:uid/abort")
  abort(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.interactions.abort(req, res);
  }

  @Get("callback")
  callback(@Req() req: Request, @Res() res: Response): void {
    sendPage(res, 200, callbackPage(new URL(req.originalUrl, "http://x").searchParams));
  }
}

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).type("text/html; charset=utf-8").send(html);
}
