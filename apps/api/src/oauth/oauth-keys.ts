import { randomBytes } from "node:crypto";
import type { Database } from "@community/db";
import type { JWK } from "../auth/jose";
import { loadJose } from "../auth/jose";

export interface AuthorizationServerKeys {
  /** Private JWKs that sign access and ID tokens; the first one signs, all of them verify. */
  signing: JWK[];
  /** Secrets that sign the server's cookies; the first one signs, all of them verify. */
  cookies: string[];
}

/** The algorithm of the generated signing key: ES256 keys are small and fast to verify. */
export const SIGNING_ALGORITHM = "ES256";

/** Arbitrary, fixed: serialises the first start of several replicas on one database. */
const KEY_CREATION_LOCK = 727_074;

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "k", "oth"] as const;

/**
 * The keys of the built-in authorization server, from the database. On the very first start
 * they are generated and stored there, so they survive restarts and every replica signs with the
 * same key; they are never part of the repository.
 */
export async function loadOrCreateKeys(database: Database): Promise<AuthorizationServerKeys> {
  const existing = await readKeys(database);
  if (existing.signing.length > 0 && existing.cookies.length > 0) return existing;

  const jose = await loadJose();
  const { privateKey } = await jose.generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  const kid = await jose.calculateJwkThumbprint(jwk);
  const signing: JWK = { ...jwk, kid, alg: SIGNING_ALGORITHM, use: "sig" };
  const cookie = randomBytes(32).toString("base64url");

  await database.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEY_CREATION_LOCK})`;
    if ((await tx.oAuthKey.count({ where: { kind: "signing" } })) === 0) {
      await tx.oAuthKey.create({ data: { id: kid, kind: "signing", material: signing as object } });
    }
    if ((await tx.oAuthKey.count({ where: { kind: "cookie" } })) === 0) {
      await tx.oAuthKey.create({ data: { id: `cookie-${kid}`, kind: "cookie", material: cookie } });
    }
  });
  return readKeys(database);
}

async function readKeys(database: Database): Promise<AuthorizationServerKeys> {
  const rows = await database.prisma.oAuthKey.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return {
    signing: rows.filter((row) => row.kind === "signing").map((row) => row.material as JWK),
    cookies: rows.filter((row) => row.kind === "cookie").map((row) => row.material as string),
  };
}

/** The public halves of the stored signing keys: what verifies the built-in server's tokens. */
export async function readPublicSigningKeys(database: Database): Promise<JWK[]> {
  const rows = await database.prisma.oAuthKey.findMany({ where: { kind: "signing" } });
  return rows.map((row) => toPublicJwk(row.material as JWK));
}

export function toPublicJwk(jwk: JWK): JWK {
  const copy: Record<string, unknown> = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete copy[member];
  return copy as JWK;
}
