/** The scope both list endpoints require of a JWT access token (opaque tokens are not scoped). */
export const READ_SCOPE = "community:read";
