import path from "node:path";
import { WORKSPACE_ROOT } from "../config/config";
import { buildOpenApiDocument } from "./openapi-document";

/** Where the committed document lives (README, "API documentation"). */
export const OPENAPI_FILE = path.join(WORKSPACE_ROOT, "docs", "openapi.json");

/** The exact text of docs/openapi.json: stable key order, two-space indent, final newline. */
export function renderOpenApiFile(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
