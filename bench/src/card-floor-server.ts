import "reflect-metadata";
import { createDatabase, hashToken, prismaStatements } from "@community/db";
import { EVENTS_LIST, GUIDES_LIST, lookUpToken, TeamListReader, type TokenMember } from "@community/db/lists";
import {
  applyDecorators,
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  HttpCode,
  Injectable,
  Module,
  type Type as NestType,
  Query,
  Req,
  Res,
  UnauthorizedException,
  UseGuards,
  ValidationPipe,
} from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import { AuthGuard, PassportModule, PassportStrategy } from "@nestjs/passport";
import { Type } from "class-transformer";
import { IsInt, IsOptional, Max, Min } from "class-validator";
import type { Request, Response } from "express";
import { Strategy } from "passport-http-bearer";
import { Pool } from "pg";
import { pageParam, sendPlainPage } from "./peer-queries";

/**
 * The card floor: the least a server of the card's shape can do for the floor's page-mode work
 * (floor-server.ts), and nothing else. NestJS on Express, a passport bearer strategy behind
 * `AuthGuard("bearer")`, a class-validator query DTO through the global `ValidationPipe`, and the
 * same token lookup and page statement as the api and the floor, sent through Prisma's raw
 * queries over the same prepared-statement pool as the api (`createDatabase`). No logging,
 * metrics, rate limit, security headers, page cache, compression or problem bodies: what it costs
 * beyond the floor is the price of the card's parts themselves, the least any api of that shape
 * pays (bench/results/2026-11-history.md,
 * "What the card itself costs"). Run in the api's slot, or beside both with
 * `node bench/dist/cpu-per-request.js --card`.
 *
 * `CARD_FLOOR_PARTS` (default `passport,dto,prisma`) names the parts used; a part left out is done
 * the floor's way (the header matched by a regular expression and the lookup called from a plain
 * guard; the query parsed by hand; the statements sent by node-postgres, unnamed), so that each
 * part's own cost is the difference between two runs.
 */

const PARTS = new Set((process.env.CARD_FLOOR_PARTS ?? "passport,dto,prisma").split(",").filter((p) => p !== ""));
for (const part of PARTS) {
  if (!["passport", "dto", "prisma"].includes(part)) throw new Error(`CARD_FLOOR_PARTS: unknown part "${part}"`);
}
const url = process.env.DATABASE_URL ?? "";
const poolMax = Number(process.env.DB_POOL_MAX ?? 10);
const database = PARTS.has("prisma") ? createDatabase({ url, poolMax }) : undefined;
const pool = database === undefined ? new Pool({ connectionString: url, max: poolMax }) : undefined;
const statements = database === undefined ? (pool as Pool) : prismaStatements(database.prisma);
const reads = database === undefined ? (pool as Pool) : prismaStatements(database.prismaReads);

async function member(token: string): Promise<TokenMember | false> {
  const found = await lookUpToken(statements, hashToken(token), new Date());
  return found?.valid === true ? found : false;
}

@Injectable()
class BearerStrategy extends PassportStrategy(Strategy, "bearer") {
  validate(token: string): Promise<TokenMember | false> {
    return member(token);
  }
}

/** Without passport: the floor's header match and the same lookup, from a guard of our own. */
@Injectable()
class PlainBearerGuard implements CanActivate {
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const match = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "");
    const found = match === null ? false : await member(match[1] as string);
    if (found === false) throw new UnauthorizedException();
    request.user = found;
    return true;
  }
}
const BearerGuard: NestType<CanActivate> = PARTS.has("passport") ? AuthGuard("bearer") : PlainBearerGuard;

/** An optional whole number from 1 to `max`, from the query's text. */
const PositiveIntUpTo = (max: number) =>
  applyDecorators(
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(1),
    Max(max),
  );

class PageQueryDto {
  @PositiveIntUpTo(2_147_483_647)
  page = 1;

  @PositiveIntUpTo(100)
  per_page = 100;
}

const READERS = {
  events: new TeamListReader(reads, EVENTS_LIST),
  guides: new TeamListReader(reads, GUIDES_LIST),
};

/** Without the DTO: the floor's parsing of `page` and `per_page`. */
function parsedQuery(request: Request): PageQueryDto | undefined {
  const page = pageParam(request.query.page, 1, 2_147_483_647);
  const perPage = pageParam(request.query.per_page, 100, 100);
  return page === undefined || perPage === undefined ? undefined : { page, per_page: perPage };
}

async function sendPage(
  list: keyof typeof READERS,
  query: PageQueryDto,
  request: Request,
  response: Response,
): Promise<void> {
  // what the strategy's validate() gave passport, which put it on the request
  const teamId = (request.user as TokenMember | undefined)?.team_id;
  if (teamId === null || teamId === undefined) {
    response.status(404).end();
    return;
  }
  await sendPlainPage(response, {
    reader: READERS[list],
    list,
    path: request.path,
    teamId,
    request: { page: query.page, perPage: query.per_page },
    ifNoneMatch: request.headers["if-none-match"],
  });
}

@Controller("v1/me/community/team")
@UseGuards(BearerGuard)
class ListsController {
  @Get("events")
  @HttpCode(200)
  events(@Query() query: PageQueryDto, @Req() request: Request, @Res() response: Response): Promise<void> {
    return sendPage("events", query, request, response);
  }

  @Get("guides")
  @HttpCode(200)
  guides(@Query() query: PageQueryDto, @Req() request: Request, @Res() response: Response): Promise<void> {
    return sendPage("guides", query, request, response);
  }
}

/** The same routes without the DTO: no `@Query()`, no pipe. */
@Controller("v1/me/community/team")
@UseGuards(BearerGuard)
class HandParsedListsController {
  @Get("events")
  events(@Req() request: Request, @Res() response: Response): Promise<void> | undefined {
    return answer("events", request, response);
  }

  @Get("guides")
  guides(@Req() request: Request, @Res() response: Response): Promise<void> | undefined {
    return answer("guides", request, response);
  }
}

function answer(list: keyof typeof READERS, request: Request, response: Response): Promise<void> | undefined {
  const query = parsedQuery(request);
  if (query !== undefined) return sendPage(list, query, request, response);
  response.status(400).end();
  return undefined;
}

@Module({
  imports: PARTS.has("passport") ? [PassportModule] : [],
  controllers: [PARTS.has("dto") ? ListsController : HandParsedListsController],
  providers: PARTS.has("passport") ? [BearerStrategy] : [],
})
class CardFloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(CardFloorModule, { logger: ["error"] });
  if (PARTS.has("dto")) {
    app.useGlobalPipes(new ValidationPipe({ transform: true, whitelist: true, forbidNonWhitelisted: true }));
  }
  await app.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1");
  process.once("SIGTERM", () => {
    void app.close().then(() => (database === undefined ? pool?.end() : database.close()));
  });
}

void main();
