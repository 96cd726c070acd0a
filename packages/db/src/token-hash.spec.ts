import { hashToken } from "./token-hash";

describe(hashToken.name, () => {
  it("is the SHA-256 hex digest of the token's UTF-8 bytes", () => {
    // FIPS 180-2 test vector.
    expect(hashToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashToken("demo-token-runners")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("tells tokens apart that differ only in case", () => {
    expect(hashToken("Token")).not.toBe(hashToken("token"));
  });
});
