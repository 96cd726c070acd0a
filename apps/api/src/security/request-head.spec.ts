import { loadConfig } from "../config/config";
import { requestHeadProblem } from "./request-head";

describe(requestHeadProblem.name, () => {
  const config = loadConfig({ HTTP_MAX_HEADER_BYTES: "8192", HTTP_HEADERS_TIMEOUT_MS: "70000" });
  const parserError = (code: string, reason?: string) =>
    Object.assign(new Error(`Parse Error: ${reason}`), { code, reason });

  it.each([
    [
      parserError("HPE_HEADER_OVERFLOW", "Header overflow"),
      431,
      "request-header-too-large",
      "The request line and headers are limited to 8192 bytes and 100 header fields",
    ],
    [
      Object.assign(new Error("Request timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" }),
      408,
      "request-timeout",
      "The request head did not arrive within 70000 ms",
    ],
    [
      parserError("HPE_CHUNK_EXTENSIONS_OVERFLOW", "Chunk extensions overflow"),
      413,
      "payload-too-large",
      "Chunk extensions are limited to 16384 bytes",
    ],
    [
      parserError("HPE_INVALID_METHOD", "Invalid method encountered"),
      400,
      "bad-request",
      "The request is not valid HTTP/1.1: Invalid method encountered",
    ],
    [
      parserError("HPE_UNEXPECTED_CONTENT_LENGTH", "Content-Length can't be present with Transfer-Encoding"),
      400,
      "bad-request",
      "The request is not valid HTTP/1.1: Content-Length can't be present with Transfer-Encoding",
    ],
    [
      Object.assign(new Error("odd"), { code: "HPE_SOMETHING_NEW" }),
      400,
      "bad-request",
      "The request is not valid HTTP/1.1: HPE_SOMETHING_NEW",
    ],
  ])("answers %s with %i %s", (error, status, type, detail) => {
    const problem = requestHeadProblem(error, config);
    expect({ status: problem.status, type: problem.type, detail: problem.detail }).toEqual({ status, type, detail });
  });
});
