import {
  buildLinkHeader,
  WEBHOOKS_SCOPE,
  type WebhookDeliveries,
  type WebhookDeliveryResource,
  type WebhookResource,
  type WebhookWithSecret,
} from "@community/domain";
import {
  All,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
  UseInterceptors,
  UsePipes,
} from "@nestjs/common";
import type { Request, Response } from "express";
import { type AuthenticatedRequest, BearerAuthGuard } from "../auth/bearer-auth.guard";
import { AcceptJsonGuard } from "../common/accept-json.guard";
import { JsonBodyInterceptor, JsonBodyValidationPipe } from "../common/json-body";
import { Public, RequiredScope } from "../common/public.decorator";
import { MethodNotAllowedException, NoCommunityTeamException } from "../team-lists/team-lists.problems";
import { CreateWebhookDto } from "./dto/create-webhook.dto";
import { DeliveriesQueryDto } from "./dto/deliveries-query.dto";
import { deliveriesPage, deliveryResource, webhookResource } from "./webhook-resources";
import { WebhooksService } from "./webhooks.service";

export const WEBHOOKS_PATH = "v1/me/community/team/webhooks";

/**
 * `/v1/me/community/team/webhooks` (contract 10.2): the caller's subscriptions, each visible to
 * the user and client that created it only. Behind the bearer token (passport) with the scope
 * community:webhooks, then Accept (406); bodies are JSON (JsonBodyInterceptor) validated by
 * class-validator (JsonBodyValidationPipe), queries by the global ValidationPipe.
 */
@Controller(WEBHOOKS_PATH)
@UseGuards(BearerAuthGuard, AcceptJsonGuard)
@RequiredScope(WEBHOOKS_SCOPE)
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @UseInterceptors(JsonBodyInterceptor)
  @UsePipes(JsonBodyValidationPipe)
  async create(
    @Body() body: CreateWebhookDto,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<WebhookWithSecret> {
    this.webhooks.assertAvailable();
    if (request.user.teamId === null) throw new NoCommunityTeamException();
    const { subscription, secret } = await this.webhooks.create(request.user, body);
    response.status(201).location(`/${WEBHOOKS_PATH}/${subscription.id}`).set("Cache-Control", "no-store");
    return { ...webhookResource(subscription), secret };
  }

  @Get()
  async list(@Req() request: AuthenticatedRequest): Promise<{ webhooks: WebhookResource[] }> {
    this.webhooks.assertAvailable();
    const now = new Date();
    return { webhooks: (await this.webhooks.list(request.user)).map((row) => webhookResource(row, now)) };
  }

  @Get(":id")
  async get(@Param("id") id: string, @Req() request: AuthenticatedRequest): Promise<WebhookResource> {
    this.webhooks.assertAvailable();
    return webhookResource(await this.webhooks.get(request.user, id));
  }

  @Delete(":id")
  @HttpCode(204)
  async delete(@Param("id") id: string, @Req() request: AuthenticatedRequest): Promise<void> {
    this.webhooks.assertAvailable();
    await this.webhooks.delete(request.user, id);
  }

  @Post(":id/rotate-secret")
  @HttpCode(200)
  async rotateSecret(
    @Param("id") id: string,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<WebhookWithSecret> {
    this.webhooks.assertAvailable();
    const { subscription, secret } = await this.webhooks.rotateSecret(request.user, id);
    response.set("Cache-Control", "no-store");
    return { ...webhookResource(subscription), secret };
  }

  @Get(":id/deliveries")
  async deliveries(
    @Param("id") id: string,
    @Query() query: DeliveriesQueryDto,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<WebhookDeliveries> {
    this.webhooks.assertAvailable();
    const page = { page: query.page, perPage: query.per_page };
    const { subscriptionId, items, total } = await this.webhooks.deliveries(request.user, id, page);
    const body = deliveriesPage(items, total, page.page, page.perPage);
    // As a list's page: Link (first, prev, next, last) and X-Total-Count. The path carries the id
    // as stored, never the request's text.
    response.set({
      Link: buildLinkHeader(`/${WEBHOOKS_PATH}/${subscriptionId}/deliveries`, body.meta.pagination),
      "X-Total-Count": String(total),
    });
    return body;
  }

  @Post(":id/deliveries/:delivery/redeliver")
  @HttpCode(202)
  async redeliver(
    @Param("id") id: string,
    @Param("delivery") delivery: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ delivery: WebhookDeliveryResource }> {
    this.webhooks.assertAvailable();
    return { delivery: deliveryResource(await this.webhooks.redeliver(request.user, id, delivery)) };
  }

  // As in calendar-feeds.controller.ts: each controller declares its own paths' 405s, so its routes read in one place.
  // The 405s, declared after the routes above (Express tries routes in order): each path with the
  // methods it answers.
  @All()
  @Public()
  collectionOtherMethods(@Req() request: Request): never {
    throw new MethodNotAllowedException(request.method, "GET, HEAD, POST");
  }

  @All(":id")
  @Public()
  subscriptionOtherMethods(@Req() request: Request): never {
    throw new MethodNotAllowedException(request.method, "GET, HEAD, DELETE");
  }

  @All(":id/deliveries")
  @Public()
  logOtherMethods(@Req() request: Request): never {
    throw new MethodNotAllowedException(request.method, "GET, HEAD");
  }

  @All([":id/rotate-secret", ":id/deliveries/:delivery/redeliver"])
  @Public()
  actionOtherMethods(@Req() request: Request): never {
    throw new MethodNotAllowedException(request.method, "POST");
  }
}
