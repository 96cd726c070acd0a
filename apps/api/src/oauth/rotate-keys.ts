import { parseArgs } from "node:util";
import { Logger } from "@nestjs/common";
import { prepareDatabase } from "../bootstrap/prepare-database";
import { type AppConfig, loadConfig } from "../config/config";
import { OAuthKeysRepository } from "../signing-keys/oauth-keys.repository";

const USAGE = `usage: pnpm oauth:rotate-keys [--activate-after <seconds>] [--overlap <seconds>]
       pnpm oauth:rotate-keys --retire
       pnpm oauth:rotate-keys --seal

Adds a new signing key to the built-in authorization server: published in the JWKS at once, signing
from --activate-after seconds on (default 0), while every older key keeps verifying for --overlap
seconds more (default: OAUTH_ACCESS_TOKEN_TTL_SECONDS + OAUTH_CLOCK_SKEW_SECONDS), then retires.
Every replica reads the keys again within OAUTH_KEYS_RELOAD_SECONDS: no restart is needed.
--retire deletes the keys whose overlap has ended (a rotation does that too).
--seal encrypts, with OAUTH_KEY_ENCRYPTION_KEY, the keys stored in clear before it was set
(while it is set, the api uses no key stored in clear).`;

function seconds(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) > 31_536_000) {
    throw new Error(`--${name} must be a whole number of seconds up to 31536000, got "${raw}"`);
  }
  return Number(raw);
}

/** The command, given its arguments and environment; returns the exit code. */
export async function rotateKeys(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  let options: { retire: boolean; seal: boolean; activateAfterSeconds: number; overlapSeconds: number };
  let config: AppConfig;
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        retire: { type: "boolean", default: false },
        seal: { type: "boolean", default: false },
        "activate-after": { type: "string" },
        overlap: { type: "string" },
        help: { type: "boolean", default: false },
      },
    });
    if (values.help) {
      out(USAGE);
      return 0;
    }
    config = loadConfig(env);
    options = {
      retire: values.retire === true,
      seal: values.seal === true,
      activateAfterSeconds: seconds("activate-after", values["activate-after"], 0),
      overlapSeconds: seconds(
        "overlap",
        values.overlap,
        config.oauth.accessTokenTtlSeconds + config.oauth.clockSkewSeconds,
      ),
    };
  } catch (error) {
    out(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }

  const prepared = await prepareDatabase({ ...config, embeddedSeedDemo: false }, new Logger("oauth:rotate-keys"));
  try {
    const keys = new OAuthKeysRepository(prepared.database, config);
    if (options.seal) {
      const sealed = await keys.sealClearRows();
      out(
        sealed.length === 0
          ? "no key row stored in clear"
          : `sealed ${sealed.length} key row(s) stored in clear: ${sealed.join(", ")}`,
      );
      return 0;
    }
    if (options.retire) {
      const removed = await keys.removeRetired();
      out(
        removed.length === 0
          ? "no retired signing key to delete"
          : `deleted retired signing key(s) ${removed.join(", ")}`,
      );
      return 0;
    }
    await keys.loadOrCreate();
    const rotation = await keys.rotate(options);
    out(`added signing key ${rotation.added}, signing from ${rotation.activatesAt.toISOString()}`);
    if (rotation.retiring.length > 0) {
      out(`key(s) ${rotation.retiring.join(", ")} verify until ${rotation.retiresAt.toISOString()}, then retire`);
    }
    if (rotation.removed.length > 0) out(`deleted retired signing key(s) ${rotation.removed.join(", ")}`);
    out(
      `every replica publishes the new key within OAUTH_KEYS_RELOAD_SECONDS (${config.oauth.keysReloadSeconds} s), with no restart`,
    );
    return 0;
  } finally {
    await prepared.close();
  }
}

if (require.main === module) {
  rotateKeys(process.argv.slice(2), process.env, (line) => process.stdout.write(`${line}\n`)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`oauth:rotate-keys failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
