import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** How an encrypted `oauth_keys.material` looks: AES-256-GCM, every member base64url. */
export type SealedMaterial = {
  sealed: "A256GCM";
  iv: string;
  tag: string;
  data: string;
};

export function isSealed(material: unknown): material is SealedMaterial {
  return typeof material === "object" && material !== null && (material as { sealed?: unknown }).sealed === "A256GCM";
}

/**
 * Encrypts a key's material with the key encryption key. `rowId` is authenticated with it, so a
 * sealed value copied onto another row does not open.
 */
export function seal(material: unknown, key: Buffer, rowId: string): SealedMaterial {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(Buffer.from(rowId, "utf8"));
  const data = Buffer.concat([cipher.update(JSON.stringify(material), "utf8"), cipher.final()]);
  return {
    sealed: "A256GCM",
    iv: iv.toString("base64url"),
    tag: cipher.getAuthTag().toString("base64url"),
    data: data.toString("base64url"),
  };
}

export function open(material: SealedMaterial, key: Buffer, rowId: string): unknown {
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(material.iv, "base64url"))
    .setAAD(Buffer.from(rowId, "utf8"))
    .setAuthTag(Buffer.from(material.tag, "base64url"));
  const clear = Buffer.concat([decipher.update(Buffer.from(material.data, "base64url")), decipher.final()]);
  return JSON.parse(clear.toString("utf8"));
}
