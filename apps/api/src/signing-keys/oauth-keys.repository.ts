import { createHash, generateKeyPairSync, type JsonWebKey, randomBytes } from "node:crypto";
import type { Database } from "@community/db";
import { Inject, Injectable, Logger } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { DATABASE } from "../database/database.tokens";
import { isSealed, open, seal } from "./key-encryption";

/** A signing key as stored: it signs from `activatesAt` and leaves the JWKS at `retiresAt`. */
export interface SigningKey {
  jwk: JsonWebKey;
  createdAt: Date;
  activatesAt: Date | null;
  retiresAt: Date | null;
}

export interface AuthorizationServerKeys {
  /** The published signing keys (not retired), the one signing now first. */
  signing: SigningKey[];
  /** Secrets that sign the server's cookies; the first one signs, all of them verify. */
  cookies: string[];
}

/** The algorithm of the generated signing key: ES256 keys are small and fast to verify. */
export const SIGNING_ALGORITHM = "ES256";

/** Arbitrary, fixed: serialises key creation and rotation by several replicas on one database. */
const KEY_CREATION_LOCK = 727_074;

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "k", "oth"] as const;

/** The `kid` of the key that signs at `now`: the newest active one (else the oldest published). */
export function signingKidAt(keys: SigningKey[], now: Date): string | undefined {
  const active = keys.filter((key) => key.activatesAt === null || key.activatesAt <= now);
  const newest = active.sort((a, b) => activeSince(b) - activeSince(a))[0] ?? keys.at(-1);
  return newest?.jwk.kid as string | undefined;
}

const activeSince = (key: SigningKey) => (key.activatesAt ?? key.createdAt).getTime();

/**
 * The keys of the built-in authorization server, in the database: generated and stored there on
 * the very first start, so they survive restarts and every replica signs with the same key; they
 * are never part of the repository. With OAUTH_KEY_ENCRYPTION_KEY set, the private keys and cookie
 * secrets are stored encrypted (AES-256-GCM). The resource server (auth) reads the public halves.
 */
@Injectable()
export class OAuthKeysRepository {
  private readonly logger = new Logger(OAuthKeysRepository.name);
  private readonly encryptionKey: Buffer | undefined;
  /** Rows in clear refused while a key encryption key is set, each logged once. */
  private readonly refused = new Set<string>();

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.encryptionKey = config.oauth.keyEncryptionKey;
  }

  async loadOrCreate(now = new Date()): Promise<AuthorizationServerKeys> {
    const existing = await this.read(now);
    if (existing.signing.length > 0 && existing.cookies.length > 0) return existing;
    if (this.refused.size > 0) {
      throw new Error(
        `oauth_keys holds keys stored in clear while OAUTH_KEY_ENCRYPTION_KEY is set: seal them with pnpm oauth:rotate-keys --seal (rows ${[...this.refused].join(", ")})`,
      );
    }

    const signing = generateSigningKey();
    const cookie = randomBytes(32).toString("base64url");
    await this.database.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEY_CREATION_LOCK})`;
      const published = await tx.oAuthKey.count({
        where: { kind: "signing", OR: [{ retiresAt: null }, { retiresAt: { gt: now } }] },
      });
      if (published === 0) {
        const id = String(signing.kid);
        await tx.oAuthKey.create({ data: { id, kind: "signing", material: this.stored(signing, id) } });
      }
      if ((await tx.oAuthKey.count({ where: { kind: "cookie" } })) === 0) {
        const id = `cookie-${signing.kid}`;
        await tx.oAuthKey.create({ data: { id, kind: "cookie", material: this.stored(cookie, id) } });
      }
    });
    return this.read(now);
  }

  /**
   * Adds a signing key that signs from `activateAfterSeconds` on, and retires every older key
   * `overlapSeconds` after that (tokens they signed keep verifying until then); deletes the keys
   * whose retirement has passed. Running replicas take the new key at their next reload
   * (OAUTH_KEYS_RELOAD_SECONDS).
   */
  async rotate(options: { activateAfterSeconds: number; overlapSeconds: number; now?: Date }) {
    const now = options.now ?? new Date();
    const activatesAt = new Date(now.getTime() + options.activateAfterSeconds * 1000);
    const retiresAt = new Date(activatesAt.getTime() + options.overlapSeconds * 1000);
    const signing = generateSigningKey();
    const kid = String(signing.kid);
    return this.database.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEY_CREATION_LOCK})`;
      const removed = await tx.oAuthKey.findMany({ where: { kind: "signing", retiresAt: { lte: now } } });
      await tx.oAuthKey.deleteMany({ where: { id: { in: removed.map((row) => row.id) } } });
      const retiring = await tx.oAuthKey.findMany({
        where: { kind: "signing", retiresAt: null },
        select: { id: true },
      });
      await tx.oAuthKey.updateMany({ where: { id: { in: retiring.map((row) => row.id) } }, data: { retiresAt } });
      await tx.oAuthKey.create({
        data: { id: kid, kind: "signing", material: this.stored(signing, kid), activatesAt },
      });
      return {
        added: kid,
        activatesAt,
        retiring: retiring.map((row) => row.id),
        retiresAt,
        removed: removed.map((row) => row.id),
      };
    });
  }

  /** Deletes the signing keys whose retirement has passed; returns their ids. */
  async removeRetired(now = new Date()): Promise<string[]> {
    const removed = await this.database.prisma.oAuthKey.findMany({
      where: { kind: "signing", retiresAt: { lte: now } },
    });
    await this.database.prisma.oAuthKey.deleteMany({ where: { id: { in: removed.map((row) => row.id) } } });
    return removed.map((row) => row.id);
  }

  /** The public halves of the published signing keys: what verifies the built-in server's tokens. */
  async publicSigningKeys(now = new Date()): Promise<JsonWebKey[]> {
    return (await this.read(now)).signing.map((key) => toPublicJwk(key.jwk));
  }

  private async read(now: Date): Promise<AuthorizationServerKeys> {
    const all = await this.database.prisma.oAuthKey.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    const rows = all.filter((row) => this.usable(row));
    const signing = rows
      .filter((row) => row.kind === "signing" && (row.retiresAt === null || row.retiresAt > now))
      .map((row) => ({
        jwk: this.material(row) as JsonWebKey,
        createdAt: row.createdAt,
        activatesAt: row.activatesAt,
        retiresAt: row.retiresAt,
      }));
    const kid = signingKidAt(signing, now);
    return {
      // The signing key first: the provider signs ID tokens with the first key of the algorithm.
      signing: [...signing.filter((key) => key.jwk.kid === kid), ...signing.filter((key) => key.jwk.kid !== kid)],
      cookies: rows.filter((row) => row.kind === "cookie").map((row) => this.material(row) as string),
    };
  }

  /** What goes into `material`: sealed when a key encryption key is configured. */
  private stored(material: JsonWebKey | string, rowId: string): object | string {
    return this.encryptionKey === undefined ? (material as object | string) : seal(material, this.encryptionKey, rowId);
  }

  private material(row: { id: string; material: unknown }): unknown {
    if (!isSealed(row.material)) return row.material;
    if (this.encryptionKey === undefined) {
      throw new Error(
        "oauth_keys holds encrypted keys: set OAUTH_KEY_ENCRYPTION_KEY (or _FILE) to the key that sealed them",
      );
    }
    try {
      return open(row.material, this.encryptionKey, row.id);
    } catch {
      throw new Error(
        `oauth_keys row ${row.id} does not open with OAUTH_KEY_ENCRYPTION_KEY: is it the key that sealed it?`,
      );
    }
  }

  /**
   * With a key encryption key set, a row in clear is never used: sealing is what proves a row was
   * written by someone holding the key, so a row planted by someone who can only write the table
   * neither signs nor is published. Keys stored in clear before the key was set are sealed by the
   * operator's command (sealClearRows), not on start.
   */
  private usable(row: { id: string; material: unknown }): boolean {
    if (this.encryptionKey === undefined || isSealed(row.material)) return true;
    if (!this.refused.has(row.id)) {
      this.refused.add(row.id);
      this.logger.error(
        `oauth_keys row ${row.id} is stored in clear while OAUTH_KEY_ENCRYPTION_KEY is set: it is not used; seal it with pnpm oauth:rotate-keys --seal if it is yours, else delete it`,
      );
    }
    return false;
  }

  /** `oauth:rotate-keys --seal`: seals, in place, the rows stored before a key encryption key was set. */
  async sealClearRows(): Promise<string[]> {
    const key = this.encryptionKey;
    if (key === undefined) throw new Error("--seal needs OAUTH_KEY_ENCRYPTION_KEY (or _FILE): the key to seal with");
    const rows = await this.database.prisma.oAuthKey.findMany();
    const sealed: string[] = [];
    for (const row of rows.filter((candidate) => !isSealed(candidate.material))) {
      const updated = await this.database.prisma.oAuthKey.updateMany({
        where: { id: row.id, material: { equals: row.material as object } },
        data: { material: seal(row.material, key, row.id) },
      });
      if (updated.count === 1) sealed.push(row.id);
    }
    this.refused.clear();
    return sealed;
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
