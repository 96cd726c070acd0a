import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { isSealed, open, seal } from "../signing-keys/key-encryption";

/** Bytes of a new signing secret (the contract allows 24 to 64). */
const SECRET_BYTES = 32;

/** How long a rotated-out secret keeps signing beside the new one. */
export const SECRET_OVERLAP_SECONDS = 24 * 3_600;

/** A new signing secret as the subscriber is shown it once: `whsec_` and base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString("base64")}`;
}

/**
 * A secret as stored: in clear, or sealed (AES-256-GCM, bound to its subscription and slot) with
 * OAUTH_KEY_ENCRYPTION_KEY, the key that also seals the authorization server's private keys.
 */
export function storedSecret(secret: string, key: Buffer | undefined, aad: string): unknown {
  return key === undefined ? secret : seal(secret, key, aad);
}

/** The secret of a stored value; throws when it is sealed and no (or another) key is configured. */
export function openedSecret(stored: unknown, key: Buffer | undefined, aad: string): string {
  if (isSealed(stored)) {
    if (key === undefined)
      throw new Error("a webhook secret is encrypted: set OAUTH_KEY_ENCRYPTION_KEY to the key that sealed it");
    return open(stored, key, aad) as string;
  }
  if (typeof stored !== "string") throw new Error("a webhook secret is stored in an unknown form");
  return stored;
}

/**
 * The Standard Webhooks headers of one attempt at a notice: its id (the same on every attempt),
 * the attempt's Unix time, and one `v1,<base64 HMAC-SHA256>` signature per secret (the current one,
 * and the previous one while a rotation overlaps), separated by spaces.
 */
export function signedHeaders(id: string, body: string, secrets: readonly string[], at: Date): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(id, at, body));
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}
