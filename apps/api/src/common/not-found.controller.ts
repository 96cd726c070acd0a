import { All, Controller, Req } from "@nestjs/common";
import type { Request } from "express";
import { NotFoundProblemException } from "./problems";

/**
 * Every path that no other route serves, as a route of its own rather than Express's fallback, so
 * that the global guards (the rate limit) count it like any other. Its module is imported last:
 * Express tries routes in the order they were registered.
 */
@Controller()
export class NotFoundController {
  @All("{*path}")
  notFound(@Req() request: Request): never {
    throw NotFoundProblemException.at(request);
  }
}
