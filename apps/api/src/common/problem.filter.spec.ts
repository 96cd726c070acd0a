import { type ArgumentsHost, HttpStatus, Logger, NotFoundException, PayloadTooLargeException } from "@nestjs/common";
import { InsufficientScopeException } from "../auth/auth.problems";
import { loadConfig } from "../config/config";
import { MethodNotAllowedException } from "../team-lists/team-lists.problems";
import { ProblemFilter } from "./problem.filter";
import { InvalidQueryException } from "./problems";

/** A fake Express response that records what the filter writes. */
function fakeHost(method = "GET", url = "/v1/me/community/team/events?page=x&access_token=secret") {
  const written: { status?: number; headers: Record<string, string>; type?: string; body?: string } = { headers: {} };
  const response = {
    headersSent: false,
    setHeader: (name: string, value: string) => {
      written.headers[name] = value;
    },
    status(code: number) {
      written.status = code;
      return this;
    },
    type(value: string) {
      written.type = value;
      return this;
    },
    send(body: string) {
      written.body = body;
      return this;
    },
  };
  const request = { method, originalUrl: url, path: url.split("?")[0] };
  const host = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  return { host, written, body: () => JSON.parse(written.body ?? "{}") as Record<string, unknown> };
}

describe(ProblemFilter.name, () => {
  const filter = new ProblemFilter(loadConfig({ PROBLEM_BASE_URL: "https://docs.example.com/problems" }));

  beforeAll(() => {
    jest.spyOn(Logger.prototype, "error").mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, "warn").mockImplementation(() => undefined);
  });

  afterAll(() => jest.restoreAllMocks());

  it("writes a typed problem with its extensions and headers", () => {
    const { host, written, body } = fakeHost();
    filter.catch(new InvalidQueryException([{ parameter: "page", message: "must be an integer" }]), host);
    expect(written.status).toBe(400);
    expect(written.type).toBe("application/problem+json; charset=utf-8");
    expect(body()).toEqual({
      type: "https://docs.example.com/problems/invalid-query",
      title: "Invalid query parameter",
      status: 400,
      detail: "page must be an integer",
      instance: "/v1/me/community/team/events?page=x",
      errors: [{ parameter: "page", message: "must be an integer" }],
    });
  });

  it("sets the Allow header of a 405", () => {
    const { host, written } = fakeHost("PUT");
    filter.catch(new MethodNotAllowedException("PUT"), host);
    expect(written.headers.Allow).toBe("GET, HEAD");
  });

  it("answers a missing scope with 403 and an insufficient_scope challenge naming the scope", () => {
    const { host, written, body } = fakeHost();
    filter.catch(new InsufficientScopeException("community:read"), host);
    expect(written.status).toBe(403);
    expect(written.headers["WWW-Authenticate"]).toBe(
      'Bearer realm="api", error="insufficient_scope", scope="community:read"',
    );
    expect(body()).toMatchObject({
      type: "https://docs.example.com/problems/insufficient-scope",
      title: "Insufficient scope",
      status: 403,
      detail: "The access token does not grant the scope community:read",
    });
  });

  it("turns the router's 404 into a not-found problem", () => {
    const { host, body } = fakeHost("GET", "/nope");
    filter.catch(new NotFoundException("Cannot GET /nope"), host);
    expect(body()).toMatchObject({ status: 404, type: "https://docs.example.com/problems/not-found" });
  });

  it("keeps the status of other framework errors", () => {
    const { host, written } = fakeHost();
    filter.catch(new PayloadTooLargeException(), host);
    expect(written.status).toBe(HttpStatus.PAYLOAD_TOO_LARGE);
  });

  it("answers a database outage with 503 and Retry-After", () => {
    const { host, written, body } = fakeHost();
    filter.catch(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }), host);
    expect(written.status).toBe(503);
    expect(written.headers["Retry-After"]).toBe("5");
    expect(body().type).toBe("https://docs.example.com/problems/unavailable");
    expect(written.body).not.toContain("ECONNREFUSED");
  });

  it("answers anything unexpected with a bare 500 that leaks nothing", () => {
    const { host, written, body } = fakeHost();
    filter.catch(new Error('relation "secret_table" does not exist at SELECT * FROM secret_table'), host);
    expect(written.status).toBe(500);
    expect(body()).toMatchObject({
      type: "https://docs.example.com/problems/internal",
      detail: "An unexpected error occurred",
    });
    expect(written.body).not.toMatch(/secret_table|SELECT|at /);
  });
});
