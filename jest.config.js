const { availableParallelism } = require("node:os");

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
  "^@community/domain$": `${__dirname}/packages/domain/src/index.ts`,
  "^@community/domain/testing$": `${__dirname}/packages/domain/src/testing.ts`,
  "^@community/db$": `${__dirname}/packages/db/src/index.ts`,
  "^@community/db/testing$": `${__dirname}/packages/db/src/testing.ts`,
  "^@community/fixtures$": `${__dirname}/packages/fixtures/src/index.ts`,
  "^@community/fixtures/testing$": `${__dirname}/packages/fixtures/src/testing/index.ts`,
  "^@community/client$": `${__dirname}/packages/client/src/index.ts`,
  "^@community/db/lists$": `${__dirname}/packages/db/src/lists/index.ts`,
  "^@community/db/calendar$": `${__dirname}/packages/db/src/calendar/index.ts`,
};

const project = (dir) => ({
  displayName: dir,
  rootDir: `${__dirname}/${dir}`,
  testEnvironment: "node",
  transform,
  moduleNameMapper,
  testMatch: ["<rootDir>/src/**/*.spec.ts", "<rootDir>/src/**/*.e2e-spec.ts", "<rootDir>/test/**/*.spec.ts"],
  // The api's hooks for every test file, so that importing a helper never registers one.
  setupFilesAfterEnv: dir === "apps/api" ? ["<rootDir>/src/testing/jest-setup.ts"] : [],
});

module.exports = {
  // Two workers even on two cores (jest's default is one fewer than the cores): the end-to-end
  // suites spend most of their time waiting for PostgreSQL, Redis and timers, so a second worker
  // fills those waits. Measured on 2 cores at load 11-15: 0.71x the time of one worker.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // After the last suite jest gives each worker this long to end before it kills it and reports
  // "A worker process has failed to exit gracefully" (default 500 ms). A worker that left nothing
  // open still needs about that long, or longer, to end once its 'exit' event has run: on 2 cores,
  // 0.7-1.1 s for workers of 0.8-1.3 GB RSS at load 10-12, 0.46-0.69 s for workers of 0.4 GB that
  // ran only unit specs at load 1-2. A timer, socket or server left open holds a worker past this
  // bound and is still reported.
  workerGracefulExitTimeout: 3_000,
  testSequencer: `${__dirname}/test/slow-first-sequencer.js`,
  projects: [
    "packages/domain",
    "packages/db",
    "packages/fixtures",
    "packages/client",
    "apps/seed",
    "apps/api",
    "apps/cli",
    "ops/scale-check",
    "bench",
    "test",
  ].map(project),
  testTimeout: 60_000,
};
