import { writeFileSync } from "node:fs";
import path from "node:path";
import { OPENAPI_FILE, renderOpenApiFile } from "./openapi-file";

// `pnpm openapi`: regenerates docs/openapi.json from the code; the test suite fails until it is committed.
writeFileSync(OPENAPI_FILE, renderOpenApiFile());
process.stdout.write(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}\n`);
