import { type CanActivate, type ExecutionContext, Injectable } from "@nestjs/common";
import type { Request } from "express";
import { NotAcceptableException } from "./problems";

/** 406 when the Accept header excludes JSON (a missing Accept header accepts anything). */
@Injectable()
export class AcceptJsonGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    // The body of a success is application/json: an Accept that only names
    // application/problem+json (or anything else) cannot be satisfied by it.
    if (request.accepts("application/json") === false) {
      throw new NotAcceptableException();
    }
    return true;
  }
}
