import { assertContractKept } from "./contract-recorder";

// Every response of an e2e suite is checked against docs/openapi.json (contract-recorder.ts); a
// response that contradicts it fails the test during which it was written.
afterEach(assertContractKept);
