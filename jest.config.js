/**
 * One jest run over the whole workspace. Tests run on the TypeScript sources (SWC transform),
 * with the workspace packages mapped to their sources, so no build is needed between an edit
 * and a test run.
 */
const transform = {
  "^.+\\.ts$": [
    require.resolve("@swc/jest"),
    {
      jsc: {
        parser: { syntax: "typescript", decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: "es2022",
      },
      // ignoreDynamic: import() stays a real dynamic import, which loads ESM-only packages (oidc-provider).
      module: { type: "commonjs", ignoreDynamic: true },
    },
  ],
};

const moduleNameMapper = {
  "^@community/domain$": "<rootDir>/../../packages/domain/src/index.ts",
  "^@community/db$": "<rootDir>/../../packages/db/src/index.ts",
  "^@community/db/testing$": "<rootDir>/../../packages/db/src/testing.ts",
  "^@community/seed$": "<rootDir>/../../apps/seed/src/index.ts",
  "^@community/client$": "<rootDir>/../../packages/client/src/index.ts",
  "^@community/cli$": "<rootDir>/../../apps/cli/src/index.ts",
};

const project = (dir) => ({
  displayName: dir,
  rootDir: `${__dirname}/${dir}`,
  testEnvironment: "node",
  transform,
  moduleNameMapper,
  testMatch: ["<rootDir>/src/**/*.spec.ts", "<rootDir>/src/**/*.e2e-spec.ts", "<rootDir>/test/**/*.spec.ts"],
});

module.exports = {
  projects: [
    "packages/domain",
    "packages/db",
    "packages/client",
    "apps/seed",
    "apps/api",
    "apps/cli",
    "ops/scale-check",
    "test",
  ].map(project),
  testTimeout: 60_000,
};
