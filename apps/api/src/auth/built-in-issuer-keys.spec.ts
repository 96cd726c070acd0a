import { generateKeyPairSync, type JsonWebKey } from "node:crypto";
import type { OAuthKeysRepository } from "../signing-keys/oauth-keys.repository";
import { testConfig } from "../testing/e2e-app";
import { BuiltInIssuerKeys } from "./built-in-issuer-keys";
import { loadJose } from "./jose";

const publicKey = (kid: string): JsonWebKey => ({
  ...generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ format: "jwk" }),
  kid,
  alg: "ES256",
});

describe(BuiltInIssuerKeys.name, () => {
  afterEach(() => jest.useRealTimers());

  it("reads the key set again every OAUTH_KEYS_RELOAD_SECONDS, dropping a deleted key", async () => {
    jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] });
    await loadJose();
    let stored = [publicKey("old")];
    const repository = { publicSigningKeys: async () => stored } as unknown as OAuthKeysRepository;
    const keys = new BuiltInIssuerKeys(repository, testConfig({ OAUTH_KEYS_RELOAD_SECONDS: "10" }));
    keys.onModuleInit();
    try {
      const header = { alg: "ES256", kid: "old" };
      await expect(keys.getKey(header, { payload: "", signature: "" } as never)).resolves.toBeDefined();
      stored = [publicKey("new")];
      await jest.advanceTimersByTimeAsync(9_000);
      await expect(keys.getKey(header, { payload: "", signature: "" } as never)).resolves.toBeDefined();
      await jest.advanceTimersByTimeAsync(1_000);
      await expect(keys.getKey(header, { payload: "", signature: "" } as never)).rejects.toThrow(/no applicable key/);
    } finally {
      keys.onModuleDestroy();
    }
  });
});
