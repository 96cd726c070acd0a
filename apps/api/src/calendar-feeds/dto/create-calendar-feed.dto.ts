import { CALENDAR_FEED_NAME_MAX } from "@community/domain";
import { IsString, Length, ValidateIf } from "class-validator";

/**
 * The body of `POST /v1/me/community/team/calendar-feeds` (contract 11.1), validated by
 * class-validator through JsonBodyValidationPipe: every bad field is named at once.
 */
export class CreateCalendarFeedDto {
  // Absent is no name; null is not a name.
  @ValidateIf((_body: unknown, name: unknown) => name !== undefined)
  @IsString({ message: `must be a string of 1 to ${CALENDAR_FEED_NAME_MAX} characters` })
  @Length(1, CALENDAR_FEED_NAME_MAX, { message: `must be a string of 1 to ${CALENDAR_FEED_NAME_MAX} characters` })
  name?: string;
}
