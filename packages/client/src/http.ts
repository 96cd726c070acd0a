import {
  apiError,
  NetworkError,
  RedirectError,
  RequestTimeoutError,
  ResponseTooLargeError,
  UnexpectedResponseError,
} from "./errors.ts";
import { pause, type Sleep } from "./pause.ts";
import { parseRetryAfter } from "./retry-after.ts";
import { asProblem } from "./validate.ts";

export interface HttpOptions {
  fetch: typeof fetch;
  maxRetries: number;
  maxRetryWaitMs: number;
  timeoutMs: number;
  maxBodyBytes: number;
  sleep: Sleep;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  /** The body as text; empty for a 304. */
  text: string;
  url: string;
}

/**
 * One GET with retries of 429 and 503 after Retry-After. Each attempt must deliver its headers
 * and its whole body within `timeoutMs` and at most `maxBodyBytes`; redirects are not followed,
 * so the token goes nowhere but the URL asked for. Error statuses become typed errors.
 */
export function get(
  url: string,
  headers: Record<string, string>,
  options: HttpOptions,
  signal?: AbortSignal,
): Promise<HttpResponse> {
  return send("GET", url, headers, undefined, options, signal);
}

/**
 * One request of any method, as `get` (a 429 or 503 was not acted on, so repeating it after
 * Retry-After is safe whatever the method).
 */
export async function send(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
  options: HttpOptions,
  signal?: AbortSignal,
): Promise<HttpResponse> {
  let waited = 0;
  for (let attempt = 0; ; attempt++) {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const failed = (error: unknown) => {
      if (signal?.aborted) return signal.reason;
      if (timeout.aborted) return new RequestTimeoutError(url, options.timeoutMs);
      return error;
    };
    let response: Response;
    try {
      response = await options.fetch(url, { method, headers, body, signal: combined, redirect: "manual" });
    } catch (error) {
      const reason = failed(error);
      throw reason === error ? new NetworkError(url, { cause: error }) : reason;
    }
    if (response.status >= 300 && response.status < 400 && response.status !== 304) {
      await response.body?.cancel().catch(() => undefined);
      throw new RedirectError(response.status, url, "the api redirected the request; the client follows no redirect");
    }
    const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
    if (response.status === 429 || response.status === 503) {
      const waitMs = (retryAfter ?? 1) * 1000;
      if (attempt < options.maxRetries && waited + waitMs <= options.maxRetryWaitMs) {
        await response.body?.cancel().catch(() => undefined);
        await pause(waitMs, options.sleep, signal);
        waited += waitMs;
        continue;
      }
    }
    let text: string;
    try {
      text =
        response.status === 304 || response.status === 204
          ? ""
          : await readText(response, url, options.maxBodyBytes, combined);
    } catch (error) {
      throw failed(error);
    }
    if (response.status >= 400) {
      throw apiError(response.status, asProblem(parseJson(text)), url, retryAfter);
    }
    return { status: response.status, headers: response.headers, text, url };
  }
}

/** The body as UTF-8 text, read chunk by chunk so that neither size nor time is unbounded. */
async function readText(response: Response, url: string, maxBytes: number, signal: AbortSignal): Promise<string> {
  const declared = response.headers.get("content-length");
  if (declared !== null && /^[0-9]+$/.test(declared) && Number(declared) > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new ResponseTooLargeError(response.status, url, maxBytes);
  }
  if (response.body === null) return "";
  const reader = response.body.getReader();
  // A fetch that ignores the signal (a caller's own) still stops reading when it fires.
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener("abort", stop, { once: true });
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal.aborted) throw signal.reason;
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new ResponseTooLargeError(response.status, url, maxBytes);
      }
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    signal.removeEventListener("abort", stop);
  }
  return text + decoder.decode();
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The parsed JSON body of a 200, or the documented error when it is not JSON. */
export function jsonBody(response: HttpResponse): unknown {
  try {
    return JSON.parse(response.text) as unknown;
  } catch {
    throw new UnexpectedResponseError(response.status, response.url, "the body is not JSON");
  }
}
