/** The scope both list endpoints require of a JWT access token (opaque tokens are not scoped). */
export const READ_SCOPE = "community:read";
/** The scope the webhooks endpoints require of a JWT access token (contract 10.2). */
export const WEBHOOKS_SCOPE = "community:webhooks";
/** The scope the calendar feeds' management endpoints require of a JWT access token (contract 11). */
export const CALENDAR_SCOPE = "community:calendar";
