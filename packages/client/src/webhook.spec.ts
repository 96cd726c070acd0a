import { randomBytes } from "node:crypto";
import { WebhookVerificationError as LibraryError, Webhook } from "standardwebhooks";
import { WebhookVerificationError } from "./errors";
import { verifyWebhookNotice } from "./webhook";
import type { WebhookNotice } from "./wire";

/** Notices signed by `standardwebhooks` (the reference implementation), checked by the client's helper. */
const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
const SECRET = newSecret();
const NOW = new Date("2026-11-30T12:00:00Z");
const NOTICE: WebhookNotice = {
  type: "events.changed",
  timestamp: "2026-11-30T12:00:00Z",
  data: { list: "events", changes: "/v1/me/community/team/events/changes" },
};

function signed(body: string, options: { secrets?: string[]; at?: Date; id?: string } = {}) {
  const { secrets = [SECRET], at = NOW, id = "msg_2kQ5pXWm" } = options;
  const signature = secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(" ");
  return {
    body,
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": signature,
    } as Record<string, string>,
  };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe(verifyWebhookNotice.name, () => {
  it("returns the typed notice of a body that standardwebhooks signed", async () => {
    const notice = signed(JSON.stringify(NOTICE));
    await expect(verifyWebhookNotice({ secret: SECRET, ...notice, now: NOW })).resolves.toEqual(NOTICE);
  });

  it("takes fetch Headers with any case and a Buffer body, and a secret without its whsec_ prefix", async () => {
    const ping = {
      ...NOTICE,
      type: "webhook.ping",
      data: { list: "guides", changes: "/v1/me/community/team/guides/changes" },
    };
    const notice = signed(JSON.stringify(ping));
    const headers = new Headers(Object.entries(notice.headers).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(
      verifyWebhookNotice({ secret: SECRET.slice("whsec_".length), headers, body: Buffer.from(notice.body), now: NOW }),
    ).resolves.toEqual(ping);
  });

  it("agrees with standardwebhooks' own verify on bodies of any characters, byte for byte", async () => {
    const names = ["plain", "Café ☕ 日本語", "emoji 🏃‍♀️ and \u2028", 'quotes " and \\ backslash'];
    for (const name of names) {
      // standardwebhooks verifies against the real clock: sign at the real now.
      const notice = signed(JSON.stringify({ ...NOTICE, extra: name }), { at: new Date() });
      expect(new Webhook(SECRET).verify(notice.body, notice.headers)).toMatchObject({ extra: name });
      await expect(verifyWebhookNotice({ secret: SECRET, ...notice })).resolves.toMatchObject({ extra: name });
    }
  });

  it("accepts either of two signatures while the api's secret rotates, and a receiver's list of secrets", async () => {
    const previous = newSecret();
    const notice = signed(JSON.stringify(NOTICE), { secrets: [previous, SECRET] });
    expect(notice.headers["webhook-signature"]).toMatch(/^v1,\S+ v1,\S+$/);
    await expect(verifyWebhookNotice({ secret: SECRET, ...notice, now: NOW })).resolves.toEqual(NOTICE);
    await expect(verifyWebhookNotice({ secret: previous, ...notice, now: NOW })).resolves.toEqual(NOTICE);

    const single = signed(JSON.stringify(NOTICE));
    await expect(verifyWebhookNotice({ secret: [newSecret(), SECRET], ...single, now: NOW })).resolves.toEqual(NOTICE);
  });

  it("refuses a notice signed with another secret, as standardwebhooks does", async () => {
    const notice = signed(JSON.stringify(NOTICE), { secrets: [newSecret()] });
    const error = await refusal(verifyWebhookNotice({ secret: [SECRET, newSecret()], ...notice, now: NOW }));
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({ kind: "bad-signature", message: expect.stringMatching(/matches the secret/) });
    expect(() => new Webhook(SECRET).verify(notice.body, { ...notice.headers })).toThrow(LibraryError);
  });

  it.each([
    ["a changed body", (n: ReturnType<typeof signed>) => ({ ...n, body: n.body.replace("events", "guides") })],
    [
      "a changed id",
      (n: ReturnType<typeof signed>) => ({ ...n, headers: { ...n.headers, "webhook-id": "msg_other" } }),
    ],
    [
      "a changed timestamp",
      (n: ReturnType<typeof signed>) => ({
        ...n,
        headers: { ...n.headers, "webhook-timestamp": String(Number(n.headers["webhook-timestamp"]) + 1) },
      }),
    ],
    [
      "a signature of another version",
      (n: ReturnType<typeof signed>) => ({
        ...n,
        headers: { ...n.headers, "webhook-signature": (n.headers["webhook-signature"] ?? "").replace("v1,", "v2,") },
      }),
    ],
    [
      "a signature that is not base64",
      (n: ReturnType<typeof signed>) => ({ ...n, headers: { ...n.headers, "webhook-signature": "v1,not base64!" } }),
    ],
  ])("refuses %s with bad-signature", async (_case, tamper) => {
    const notice = tamper(signed(JSON.stringify(NOTICE)));
    await expect(verifyWebhookNotice({ secret: SECRET, ...notice, now: NOW })).rejects.toMatchObject({
      name: "WebhookVerificationError",
      kind: "bad-signature",
    });
  });

  it("refuses a timestamp further than the tolerance either way, and takes one just within it", async () => {
    const body = JSON.stringify(NOTICE);
    const at = (seconds: number) => signed(body, { at: new Date(NOW.getTime() + seconds * 1000) });
    await expect(verifyWebhookNotice({ secret: SECRET, ...at(-300), now: NOW })).resolves.toEqual(NOTICE);
    await expect(verifyWebhookNotice({ secret: SECRET, ...at(300), now: NOW })).resolves.toEqual(NOTICE);
    for (const seconds of [-301, 301, -86_400]) {
      const error = await refusal(verifyWebhookNotice({ secret: SECRET, ...at(seconds), now: NOW }));
      expect(error).toMatchObject({ kind: "stale-timestamp", message: expect.stringMatching(/tolerance 300 s/) });
    }
    const stale = at(-30);
    await expect(
      verifyWebhookNotice({ secret: SECRET, ...stale, now: NOW, toleranceSeconds: 10 }),
    ).rejects.toMatchObject({ kind: "stale-timestamp" });
  });

  it.each(["webhook-id", "webhook-timestamp", "webhook-signature"])(
    "refuses a notice without %s, naming the header",
    async (name) => {
      const notice = signed(JSON.stringify(NOTICE));
      const headers = { ...notice.headers };
      delete headers[name];
      const error = await refusal(verifyWebhookNotice({ secret: SECRET, headers, body: notice.body, now: NOW }));
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect(error).toMatchObject({ kind: "malformed", message: `the ${name} header is missing` });
    },
  );

  it("refuses a timestamp that is not Unix seconds and a header given twice", async () => {
    const notice = signed(JSON.stringify(NOTICE));
    await expect(
      verifyWebhookNotice({
        secret: SECRET,
        body: notice.body,
        headers: { ...notice.headers, "webhook-timestamp": "2026-11-30T12:00:00Z" },
        now: NOW,
      }),
    ).rejects.toMatchObject({ kind: "malformed", message: expect.stringMatching(/webhook-timestamp/) });
    await expect(
      verifyWebhookNotice({
        secret: SECRET,
        body: notice.body,
        headers: { ...notice.headers, "webhook-id": ["a", "b"] },
        now: NOW,
      }),
    ).rejects.toMatchObject({ kind: "malformed", message: "the webhook-id header is given twice" });
  });

  it.each([
    ["not JSON", "events changed", /not JSON/],
    ["an unknown type", JSON.stringify({ ...NOTICE, type: "events.deleted" }), /body\.type must be one of/],
    ["a list of another name", JSON.stringify({ ...NOTICE, data: { ...NOTICE.data, list: "teams" } }), /data\.list/],
    [
      "a type and a list that differ",
      JSON.stringify({ ...NOTICE, data: { ...NOTICE.data, list: "guides" } }),
      /data\.list/,
    ],
    ["a timestamp with an offset", JSON.stringify({ ...NOTICE, timestamp: "2026-11-30T13:00:00+01:00" }), /timestamp/],
    [
      "a changes URL that is not a path",
      JSON.stringify({ ...NOTICE, data: { ...NOTICE.data, changes: "https://elsewhere.test/x" } }),
      /data\.changes must be a path/,
    ],
  ])("refuses a correctly signed body that is %s as malformed", async (_case, body, message) => {
    const error = await refusal(verifyWebhookNotice({ secret: SECRET, ...signed(body), now: NOW }));
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({ kind: "malformed", message: expect.stringMatching(message) });
  });

  it("tells the receiver's own mistakes apart: a secret that is not one, no secret, a bad tolerance", async () => {
    const notice = signed(JSON.stringify(NOTICE));
    await expect(verifyWebhookNotice({ secret: "whsec_not base64!", ...notice, now: NOW })).rejects.toThrow(
      new TypeError("secret is not a webhook secret: expected whsec_ followed by base64"),
    );
    await expect(verifyWebhookNotice({ secret: [SECRET, ""], ...notice, now: NOW })).rejects.toThrow(/secret\[1\]/);
    await expect(verifyWebhookNotice({ secret: [], ...notice, now: NOW })).rejects.toBeInstanceOf(TypeError);
    await expect(verifyWebhookNotice({ secret: SECRET, ...notice, toleranceSeconds: -1 })).rejects.toBeInstanceOf(
      RangeError,
    );
  });
});
