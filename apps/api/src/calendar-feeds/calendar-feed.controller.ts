import { All, Controller, Get, Param, Req, Res } from "@nestjs/common";
import type { Request, Response } from "express";
import { MethodNotAllowedException } from "../team-lists/team-lists.problems";
import { CalendarFeedService, DeadFeedException } from "./calendar-feed.service";

/**
 * `GET|HEAD /v1/calendar-feeds/{secret}.ics` (contract 11.2): no Authorization header, the secret
 * in the path is the credential (the access log, traces and problems show the path with it
 * replaced: common/secret-paths.ts). Any other method: 405; any deeper path: the same 404 as a
 * dead secret, so that a secret never reaches the generic 404's detail.
 */
@Controller("v1/calendar-feeds")
export class CalendarFeedController {
  constructor(private readonly feed: CalendarFeedService) {}

  @Get(":file")
  serve(@Param("file") file: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    return this.feed.serve(file, request, response);
  }

  @All(":file")
  otherMethods(@Req() request: Request): never {
    throw new MethodNotAllowedException(request.method, "GET, HEAD");
  }

  @All(["", "*rest"])
  elsewhere(): never {
    throw new DeadFeedException();
  }
}
