/** The most of a request's path a log line carries (OWASP Logging Cheat Sheet: bound what the client controls). */
export const LOGGED_PATH_BYTES = 512;

/** `path` cut to LOGGED_PATH_BYTES, with a marker saying how many bytes were left out. */
export function boundedPath(path: string): string {
  const bytes = Buffer.byteLength(path);
  if (bytes <= LOGGED_PATH_BYTES) return path;
  const kept = Buffer.from(path).subarray(0, LOGGED_PATH_BYTES).toString("utf8");
  return `${kept}…[${bytes - LOGGED_PATH_BYTES} more bytes]`;
}
