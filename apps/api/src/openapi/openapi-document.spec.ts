import { readFileSync } from "node:fs";
import SwaggerParser from "@apidevtools/swagger-parser";
import { buildOpenApiDocument } from "./openapi-document";
import { OPENAPI_FILE, renderOpenApiFile } from "./openapi-file";

type OpenApi = Parameters<typeof SwaggerParser.validate>[0];

describe("OpenAPI document", () => {
  it("is committed as docs/openapi.json exactly as the code generates it (run `pnpm openapi` after a change)", () => {
    expect(readFileSync(OPENAPI_FILE, "utf8")).toBe(renderOpenApiFile());
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    const document = buildOpenApiDocument();
    expect(document.openapi).toMatch(/^3\.1\./);
    // validate() dereferences in place: give it a copy
    await expect(SwaggerParser.validate(structuredClone(document) as unknown as OpenApi)).resolves.toBeDefined();
  });

  it("is rejected by the validator when it breaks the OpenAPI 3.1 schema", async () => {
    const broken = structuredClone(buildOpenApiDocument()) as {
      components: { parameters: Record<string, Record<string, unknown>> };
    };
    // "in" must be one of query, header, path, cookie
    broken.components.parameters["If-None-Match"] = { name: "If-None-Match", in: "body", schema: {} };
    await expect(SwaggerParser.validate(broken as unknown as OpenApi)).rejects.toThrow();
  });
});
