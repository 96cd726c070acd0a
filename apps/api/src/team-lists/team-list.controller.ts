import {
  All,
  applyDecorators,
  type CanActivate,
  Get,
  Req,
  type Type,
  UseGuards,
  UseInterceptors,
} from "@nestjs/common";
import type { Request } from "express";
import { AcceptJsonGuard } from "../common/accept-json.guard";
import { MethodNotAllowedException } from "../common/problems";
import { ListPageInterceptor } from "./list-page.interceptor";

/**
 * GET (and HEAD) of a list page: the route's authentication guard, then Accept (406), then the
 * handler, whose ListPage becomes the body, the headers and 304 (ListPageInterceptor).
 */
export function TeamListRoute(authentication: Type<CanActivate>) {
  return applyDecorators(Get(), UseGuards(authentication, AcceptJsonGuard), UseInterceptors(ListPageInterceptor));
}

/**
 * What every list controller shares: any method but GET and HEAD is a 405 with `Allow: GET, HEAD`.
 * Nest registers a subclass's own routes before the inherited ones, so its @Get() comes first.
 */
export abstract class TeamListController {
  @All()
  otherMethods(@Req() request: Request): never {
    throw new MethodNotAllowedException(request.method);
  }
}
