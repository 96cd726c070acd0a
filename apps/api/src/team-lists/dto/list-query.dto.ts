import type { ListDefinition, StatusOf } from "@community/domain";
import type { Type } from "@nestjs/common";
import { Transform } from "class-transformer";
import { IsIn, IsInstance, IsOptional, Validate } from "class-validator";
import { PageQueryDto } from "./page-query.dto";
import {
  commaSeparated,
  DATE_TIME_MESSAGE,
  GivenOnce,
  parseDateTime,
  QueryInstant,
  singleValue,
  WindowOrder,
} from "./query-constraints";

/** The bounds of a list's time window, under the query parameter names its definition gives them. */
export type WindowQuery<D extends ListDefinition> = {
  [Bound in D["window"]["from"] | D["window"]["to"]]?: QueryInstant;
};

/** A list's validated query: paging, its status words and its window, as its definition names them. */
export type ListQueryOf<D extends ListDefinition> = PageQueryDto & { status?: StatusOf<D>[] } & WindowQuery<D>;

/**
 * The query DTO of a list, made from its definition in @community/domain as @nestjs/mapped-types
 * makes its types: PageQueryDto, then `status` (a comma-separated subset of the definition's
 * status words) and the two bounds of its time window (RFC 3339 instants, `from` before `to`),
 * with class-validator's decorators applied under the names the definition gives them. A list's
 * controller binds `@Query() query: EventsQueryDto`, where `class EventsQueryDto extends
 * ListQueryDto(EVENTS) {}`.
 */
export function ListQueryDto<const D extends ListDefinition>(definition: D): Type<ListQueryOf<D>> {
  const words = definition.status;
  const { from, to } = definition.window;

  class ListQuery extends PageQueryDto {
    @IsOptional()
    @Transform(singleValue(commaSeparated))
    @IsIn(words, { each: true, message: `must be a comma-separated list of ${words.join(", ")}` })
    @Validate(GivenOnce)
    status?: StatusOf<D>[];
  }

  // The window's parameters are named by the definition: the same decorators, applied by name.
  const bound = (name: string, other: string, order: "before" | "after") => {
    const decorators = [
      IsOptional(),
      Transform(singleValue(parseDateTime)),
      Validate(WindowOrder, [other, order]),
      IsInstance(QueryInstant, { message: DATE_TIME_MESSAGE }),
      Validate(GivenOnce),
    ];
    for (const decorate of decorators.reverse()) decorate(ListQuery.prototype, name);
  };
  bound(from, to, "before");
  bound(to, from, "after");
  // The class has the window's properties from here on, under names only the definition knows:
  // the type says so, as @nestjs/mapped-types' types do of the classes they make.
  return ListQuery as Type<ListQueryOf<D>>;
}
