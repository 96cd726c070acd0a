import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Slow hashes for what people and clients type in: user passwords and confidential client
 * secrets. scrypt from node:crypto (no native add-on, no install script) with N=2^15, r=8, p=1
 * (32 MiB, about 100 ms per hash). The parameters travel inside the stored string, so raising them
 * later keeps old hashes verifiable: `scrypt$<N>$<r>$<p>$<salt b64url>$<hash b64url>`.
 */

const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function derive(secret: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  // maxmem: scrypt needs 128 * N * r bytes; Node's default cap (32 MiB) is just below that.
  const maxmem = 256 * (options.N ?? N) * (options.r ?? R);
  return new Promise((resolve, reject) => {
    scrypt(secret.normalize("NFC"), salt, KEY_LENGTH, { ...options, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt, { N, r: R, p: P });
  return ["scrypt", N, R, P, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** False for a wrong secret and for a stored value that is not a hash of this format. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, "base64url");
  const options = { N: Number(n), r: Number(r), p: Number(p) };
  if (!Object.values(options).every((v) => Number.isSafeInteger(v) && v > 0) || expected.length === 0) return false;
  const actual = await derive(secret, Buffer.from(salt, "base64url"), options);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
