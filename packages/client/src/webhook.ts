import { WebhookVerificationError } from "./errors.ts";
import { type Check, object, ShapeError } from "./validate.ts";
import { LIST_NAMES, type ListName, WEBHOOK_NOTICE_TYPES, type WebhookNotice, type WebhookNoticeType } from "./wire.ts";

export interface VerifyWebhookNoticeOptions {
  /**
   * The subscription's secret as the api showed it (`whsec_` and base64), or several: during a
   * rotation on the receiver's side, any one of them may have signed.
   */
  secret: string | readonly string[];
  /** The request's headers: node:http's `request.headers` or a fetch `Headers`. */
  headers: Headers | Record<string, string | readonly string[] | undefined>;
  /** The body exactly as received, before any JSON parsing: the signature covers its bytes. */
  body: string | Uint8Array | ArrayBuffer;
  /** How far `webhook-timestamp` may be from now, either way. Default 300 (Standard Webhooks). */
  toleranceSeconds?: number;
  /** The receiver's clock (tests set it). Default `Date.now()`. */
  now?: Date | number;
}

const DEFAULT_TOLERANCE_SECONDS = 300;
const SECRET_PREFIX = "whsec_";
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * Checks a webhook notice (contract 10.2, Standard Webhooks) and returns its body, parsed and
 * typed. The signature is HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}` keyed with
 * the secret's decoded bytes; `webhook-signature` holds one or more `v1,<base64>` separated by
 * spaces (two while the api's secret rotates), and one match is enough. The comparison is Web
 * Crypto's `verify`, in constant time. The body is parsed only once its signature matched.
 *
 * Throws `WebhookVerificationError` (`kind`: `malformed`, `stale-timestamp`, `bad-signature`)
 * for a notice to refuse, and `TypeError` / `RangeError` for the receiver's own mistakes (a
 * secret that is not base64, a negative tolerance).
 */
export async function verifyWebhookNotice(options: VerifyWebhookNoticeOptions): Promise<WebhookNotice> {
  const keys = await importSecrets(options.secret);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new RangeError(`toleranceSeconds must be a number of seconds, 0 or more, got ${String(tolerance)}`);
  }
  const id = header(options.headers, "webhook-id");
  const timestamp = header(options.headers, "webhook-timestamp");
  const signatures = header(options.headers, "webhook-signature");
  if (!/^[0-9]{1,12}$/.test(timestamp)) {
    throw new WebhookVerificationError("malformed", "the webhook-timestamp header is not a number of Unix seconds");
  }
  const now = options.now === undefined ? Date.now() : Number(options.now);
  if (!Number.isFinite(now)) throw new TypeError("now must be a Date or a number of milliseconds");
  const skew = Math.abs(now / 1000 - Number(timestamp));
  if (skew > tolerance) {
    throw new WebhookVerificationError(
      "stale-timestamp",
      `webhook-timestamp is ${Math.round(skew)} s away from now (tolerance ${tolerance} s)`,
    );
  }

  const body = bytesOf(options.body);
  const signed = concat(new TextEncoder().encode(`${id}.${timestamp}.`), body);
  const candidates = signatures
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => decodeBase64(entry.slice(3)))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== undefined);
  let matched = false;
  for (const key of keys) {
    for (const candidate of candidates) {
      if (await crypto.subtle.verify("HMAC", key, candidate, signed)) matched = true;
    }
  }
  if (!matched) {
    throw new WebhookVerificationError(
      "bad-signature",
      candidates.length === 0
        ? "webhook-signature holds no v1 signature"
        : "no signature of webhook-signature matches the secret",
    );
  }
  return parseNotice(body);
}

// The key type is left to inference: it is a DOM type in the build and a node:crypto one in the tests.
function importSecrets(secret: string | readonly string[]) {
  const secrets = typeof secret === "string" ? [secret] : secret;
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new TypeError("secret must be a webhook secret (whsec_...) or a non-empty array of them");
  }
  return Promise.all(
    secrets.map((value: unknown, i) => {
      const name = typeof secret === "string" ? "secret" : `secret[${i}]`;
      const bytes = typeof value === "string" ? decodeBase64(value.replace(/^whsec_/, "")) : undefined;
      if (bytes === undefined || bytes.length === 0) {
        throw new TypeError(`${name} is not a webhook secret: expected ${SECRET_PREFIX} followed by base64`);
      }
      return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    }),
  );
}

function header(headers: VerifyWebhookNoticeOptions["headers"], name: string): string {
  let value: string | readonly string[] | null | undefined;
  if (typeof Headers !== "undefined" && headers instanceof Headers) {
    value = headers.get(name);
  } else {
    const record = headers as Record<string, string | readonly string[] | undefined>;
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  if (value === undefined || value === null || value === "") {
    throw new WebhookVerificationError("malformed", `the ${name} header is missing`);
  }
  if (typeof value !== "string") throw new WebhookVerificationError("malformed", `the ${name} header is given twice`);
  return value;
}

function bytesOf(body: VerifyWebhookNoticeOptions["body"]): Uint8Array {
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError("body must be the raw body: a string, a Uint8Array (a Buffer) or an ArrayBuffer");
}

function concat(head: Uint8Array, tail: Uint8Array): Uint8Array<ArrayBuffer> {
  const joined = new Uint8Array(head.length + tail.length);
  joined.set(head);
  joined.set(tail, head.length);
  return joined;
}

/** Standard base64 (RFC 4648 section 4, padding optional), or undefined for anything else. */
function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

const oneOf =
  <T extends string>(values: readonly T[]): Check<T> =>
  (value, path) => {
    if (typeof value !== "string" || !values.includes(value as T)) {
      throw new ShapeError(path, `one of ${values.map((v) => `"${v}"`).join(", ")}`, value);
    }
    return value as T;
  };

const notice = object<WebhookNotice>({
  type: oneOf<WebhookNoticeType>(WEBHOOK_NOTICE_TYPES),
  timestamp: (value, path) => {
    if (typeof value !== "string" || !RFC3339_UTC.test(value)) {
      throw new ShapeError(path, "an RFC 3339 date-time in UTC", value);
    }
    return value;
  },
  data: object<WebhookNotice["data"]>({
    list: oneOf<ListName>(LIST_NAMES),
    changes: (value, path) => {
      if (typeof value !== "string" || !value.startsWith("/")) throw new ShapeError(path, "a path", value);
      return value;
    },
  }),
});

function parseNotice(body: Uint8Array): WebhookNotice {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError("malformed", "the body is not JSON in UTF-8");
  }
  try {
    const parsed = notice(value, "body");
    if (parsed.type !== "webhook.ping" && parsed.type !== `${parsed.data.list}.changed`) {
      throw new ShapeError(
        "body.data.list",
        `"${parsed.type.split(".")[0]}" for a ${parsed.type} notice`,
        parsed.data.list,
      );
    }
    return parsed;
  } catch (error) {
    if (error instanceof ShapeError) throw new WebhookVerificationError("malformed", error.message);
    throw error;
  }
}
