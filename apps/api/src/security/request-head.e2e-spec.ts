import { TOKENS } from "@community/fixtures/testing";
import { expectProblemBody } from "../testing/contract-assertions";
import { type RawResponse, sendRaw } from "../testing/raw-http";
import { listeningContractAppForSuite } from "../testing/suite-app";

const EVENTS = "/v1/me/community/team/events";

function expectHeadProblem(response: RawResponse, status: number, typeSuffix: string): Record<string, unknown> {
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
  expect(response.headers.connection).toBe("close");
  expect(Number(response.headers["content-length"])).toBe(Buffer.byteLength(response.body));
  expect(response.closed).toBe(true);
  const body = expectProblemBody(response.body, status, typeSuffix);
  expect(body).not.toHaveProperty("stack");
  return body;
}

const get = (target: string, headers: string[] = []) =>
  [`GET ${target} HTTP/1.1`, "Host: localhost", ...headers, "", ""].join("\r\n");

describe("request heads the HTTP parser refuses (defaults)", () => {
  const app = listeningContractAppForSuite();

  it("answers a 64 KiB query string with a 431 problem, without echoing the query", async () => {
    const secret = "q".repeat(64 * 1024);
    const response = await sendRaw(
      app.port,
      get(`${EVENTS}?access_token=${secret}`, [`Authorization: Bearer ${TOKENS.runner}`]),
    );
    const body = expectHeadProblem(response, 431, "request-header-too-large");
    expect(body.detail).toBe("The request line and headers are limited to 16384 bytes and 100 header fields");
    expect(response.body).not.toContain("qqqq");
    expect(response.body).not.toContain(TOKENS.runner);
  });

  it("answers a 20 KiB bearer token with a 431 problem", async () => {
    const response = await sendRaw(app.port, get(EVENTS, [`Authorization: Bearer ${"t".repeat(20 * 1024)}`]));
    const body = expectHeadProblem(response, 431, "request-header-too-large");
    // The parser gave up before a request could be read: the problem names no path.
    expect(body.instance).toBe("*");
  });

  it.each([
    ["a request line that is not HTTP", "GARBAGE\r\n\r\n"],
    ["a header name with a space", get(EVENTS, ["Bad Header: x"])],
    ["a control character in a header value", get(EVENTS, ["X-Note: a\u0001b"])],
    ["a Content-Length that is not a number", get(EVENTS, ["Content-Length: ten"])],
    ["both Content-Length and chunked", get(EVENTS, ["Content-Length: 3", "Transfer-Encoding: chunked"])],
  ])("answers %s with a 400 bad-request problem", async (_case, head) => {
    const body = expectHeadProblem(await sendRaw(app.port, head), 400, "bad-request");
    expect(body.detail).toMatch(/^The request is not valid HTTP\/1\.1: /);
  });

  it("still serves a head just under the limit", async () => {
    const response = await sendRaw(
      app.port,
      get(EVENTS, [
        `Authorization: Bearer ${TOKENS.runner}`,
        `X-Padding: ${"p".repeat(15 * 1024)}`,
        "Connection: close",
      ]),
    );
    expect(response.status).toBe(200);
  });
});

describe("request heads with HTTP_MAX_HEADER_BYTES", () => {
  const app = listeningContractAppForSuite({ HTTP_MAX_HEADER_BYTES: "4096" });

  it("takes the limit from HTTP_MAX_HEADER_BYTES", async () => {
    const response = await sendRaw(app.port, get(EVENTS, [`X-Padding: ${"p".repeat(5 * 1024)}`]));
    const body = expectHeadProblem(response, 431, "request-header-too-large");
    expect(body.detail).toBe("The request line and headers are limited to 4096 bytes and 100 header fields");
    const small = await sendRaw(app.port, get(EVENTS, [`Authorization: Bearer ${TOKENS.runner}`, "Connection: close"]));
    expect(small.status).toBe(200);
  });
});
