import { type CanActivate, type ExecutionContext, Injectable } from "@nestjs/common";
import { Reflector } from "@nestjs/core";
import type { Request } from "express";
import { NotAcceptableException } from "./problems";
import { isPublic } from "./public.decorator";

/** 406 when the Accept header excludes JSON (a missing Accept header accepts anything). */
@Injectable()
export class AcceptJsonGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (isPublic(this.reflector, context)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    // The body of a success is application/json: an Accept that only names
    // application/problem+json (or anything else) cannot be satisfied by it.
    if (request.accepts("application/json") === false) {
      throw new NotAcceptableException();
    }
    return true;
  }
}
