import { hashSecret, verifySecret } from "./secret-hash";

describe("hashSecret", () => {
  it("produces a salted scrypt hash that verifies the secret and nothing else", async () => {
    const stored = await hashSecret("correct horse");
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(stored).not.toContain("correct horse");
    await expect(verifySecret("correct horse", stored)).resolves.toBe(true);
    await expect(verifySecret("correct horsE", stored)).resolves.toBe(false);
    await expect(verifySecret("", stored)).resolves.toBe(false);
  });

  it("salts every hash, so equal secrets give different strings", async () => {
    expect(await hashSecret("same")).not.toBe(await hashSecret("same"));
  });

  it("rejects stored values of another format instead of throwing", async () => {
    await expect(verifySecret("x", "x")).resolves.toBe(false);
    await expect(verifySecret("x", "bcrypt$1$2$3$abc$def")).resolves.toBe(false);
    await expect(verifySecret("x", "scrypt$NaN$8$1$abc$def")).resolves.toBe(false);
  });
});
