import { createHash, generateKeyPairSync, type JsonWebKey, randomBytes } from "node:crypto";
import type { Database } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";

export interface AuthorizationServerKeys {
  /** Private JWKs that sign access and ID tokens; the first one signs, all of them verify. */
  signing: JsonWebKey[];
  /** Secrets that sign the server's cookies; the first one signs, all of them verify. */
  cookies: string[];
}

/** The algorithm of the generated signing key: ES256 keys are small and fast to verify. */
export const SIGNING_ALGORITHM = "ES256";

/** Arbitrary, fixed: serialises the first start of several replicas on one database. */
const KEY_CREATION_LOCK = 727_074;

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "k", "oth"] as const;

/**
 * The keys of the built-in authorization server, in the database: generated and stored there on
 * the very first start, so they survive restarts and every replica signs with the same key; they
 * are never part of the repository. The resource server (auth) reads their public halves here.
 */
@Injectable()
export class OAuthKeysRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  async loadOrCreate(): Promise<AuthorizationServerKeys> {
    const existing = await this.read();
    if (existing.signing.length > 0 && existing.cookies.length > 0) return existing;

    const signing = generateSigningKey();
    const cookie = randomBytes(32).toString("base64url");
    await this.database.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEY_CREATION_LOCK})`;
      if ((await tx.oAuthKey.count({ where: { kind: "signing" } })) === 0) {
        await tx.oAuthKey.create({ data: { id: String(signing.kid), kind: "signing", material: signing as object } });
      }
      if ((await tx.oAuthKey.count({ where: { kind: "cookie" } })) === 0) {
        await tx.oAuthKey.create({ data: { id: `cookie-${signing.kid}`, kind: "cookie", material: cookie } });
      }
    });
    return this.read();
  }

  /** The public halves of the stored signing keys: what verifies the built-in server's tokens. */
  async publicSigningKeys(): Promise<JsonWebKey[]> {
    const rows = await this.database.prisma.oAuthKey.findMany({ where: { kind: "signing" } });
    return rows.map((row) => toPublicJwk(row.material as JsonWebKey));
  }

  private async read(): Promise<AuthorizationServerKeys> {
    const rows = await this.database.prisma.oAuthKey.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    return {
      signing: rows.filter((row) => row.kind === "signing").map((row) => row.material as JsonWebKey),
      cookies: rows.filter((row) => row.kind === "cookie").map((row) => row.material as string),
    };
  }
}

/** A new P-256 key as a private JWK, identified by its RFC 7638 thumbprint. */
function generateSigningKey(): JsonWebKey {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = privateKey.export({ format: "jwk" });
  // RFC 7638: the required members of an EC key, in lexicographic order, without whitespace.
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  const kid = createHash("sha256").update(canonical).digest("base64url");
  return { ...jwk, kid, alg: SIGNING_ALGORITHM, use: "sig" };
}

function toPublicJwk(jwk: JsonWebKey): JsonWebKey {
  const copy: JsonWebKey = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete copy[member];
  return copy;
}
