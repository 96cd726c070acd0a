export {
  DEMO_CLIENT_ID,
  DEMO_NOW,
  DEMO_OAUTH_CLIENTS,
  DEMO_PASSWORDS,
  DEMO_TOKENS,
  type DemoToken,
  demoFixture,
} from "./demo";
export { FixtureValidationError } from "./errors";
export {
  DEFAULT_BATCH_SIZE,
  type FixtureCollection,
  type LoadCounts,
  type LoadOptions,
  loadFixture,
} from "./loader";
export { parseFixtureText, readFixtureFile } from "./read-fixture";
