import { type ListName, TEAM_LISTS } from "@community/db/lists";
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  Validate,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from "class-validator";

export const LIST_NAMES: readonly ListName[] = TEAM_LISTS.map((list) => list.list);

/** Longest URL a subscription may name (the ping and every notice go there). */
export const URL_MAX_LENGTH = 2048;

/** `url` is a string of at most URL_MAX_LENGTH characters; WebhookUrlPolicy judges the rest. */
@ValidatorConstraint({ name: "webhookUrl" })
class WebhookUrlShape implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === "string" && value.length > 0 && value.length <= URL_MAX_LENGTH;
  }

  defaultMessage(): string {
    return `must be an absolute https URL of at most ${URL_MAX_LENGTH} characters`;
  }
}

/**
 * The body of `POST /v1/me/community/team/webhooks` (contract 10.2), validated by class-validator
 * through the webhooks' body pipe: every bad field is named at once. Where the URL may point
 * (scheme, credentials, the addresses it names or resolves to) is WebhookUrlPolicy's, after this.
 */
export class CreateWebhookDto {
  @Validate(WebhookUrlShape)
  url!: string;

  @IsArray({ message: `must be a non-empty array of list names (${LIST_NAMES.join(", ")})` })
  @ArrayNotEmpty({ message: `must name at least one list (${LIST_NAMES.join(", ")})` })
  @ArrayMaxSize(LIST_NAMES.length, { message: `must name each list at most once (${LIST_NAMES.join(", ")})` })
  @ArrayUnique({ message: "must name each list at most once" })
  @IsIn(LIST_NAMES, { each: true, message: `must hold only ${LIST_NAMES.join(" or ")}` })
  lists!: ListName[];

  @IsOptional()
  @IsString({ message: "must be a string" })
  @MaxLength(500, { message: "must be at most 500 characters" })
  description?: string;
}
