import { brotliDecompressSync, gunzipSync } from "node:zlib";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

/**
 * Paths that the api serves but this document does not describe, each with its reason. Responses
 * on them are counted, not validated. Every other path is either a documented one or must answer
 * with the document's NotFound problem. Extend the list when a component with its own contract
 * (authorization server, health, metrics) joins the api.
 */
export const UNDOCUMENTED_PATHS: ReadonlyArray<{ prefix: string; reason: string }> = [
  { prefix: "/openapi.json", reason: "the document itself" },
  { prefix: "/docs", reason: "Swagger UI assets" },
  { prefix: "/oauth/", reason: "the authorization server (oidc-provider); its own protocol contract" },
  {
    prefix: "/metrics",
    reason: "the operators' Prometheus scrape (docs/operations.md), not part of the consumers' API",
  },
];

/** One HTTP exchange as the server wrote it. */
export interface ObservedResponse {
  method: string;
  /** Path and query of the request. */
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

export type ContractVerdict = { kind: "checked"; violations: string[] } | { kind: "undocumented-path"; reason: string };

type Json = Record<string, unknown>;

const SCHEMA_BASE = "https://openapi.invalid/components/schemas/";

/** Points the document's `#/components/schemas/X` references at the ids the component schemas get here. */
function withAbsoluteRefs(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${SCHEMA_BASE}`)) as Json;
}

const HTTP_METHODS = ["get", "head", "post", "put", "patch", "delete", "options", "trace"];

/** The body without its content coding (gzip, br), as a client reads it. */
function decoded(response: ObservedResponse): Buffer {
  const coding = response.headers["content-encoding"];
  if (coding === "gzip") return gunzipSync(response.body);
  if (coding === "br") return brotliDecompressSync(response.body);
  return response.body;
}

/** Checks responses against an OpenAPI 3.1 document: status, headers, content type and body schema. */
export class OpenApiContract {
  private readonly ajv: Ajv2020;
  /** Coerces header strings ("40") to the header schema's type, as the simple style means. */
  private readonly headerAjv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    // Unknown keywords and formats still fail; strictTypes/strictRequired would reject the standard
    // allOf refinements the problem responses use (a pattern or required beside a $ref).
    const options = { allErrors: true, strict: true, strictTypes: false, strictRequired: false } as const;
    this.ajv = addFormats(new Ajv2020(options));
    this.headerAjv = addFormats(new Ajv2020({ ...options, coerceTypes: true }));
    // Each component schema on its own absolute id: the rest of an OpenAPI document is not a JSON Schema.
    for (const [name, schema] of Object.entries(this.components("schemas"))) {
      const withId = { ...withAbsoluteRefs(schema as Json), $id: `${SCHEMA_BASE}${name}` };
      this.ajv.addSchema(withId);
      this.headerAjv.addSchema(withId);
    }
  }

  check(response: ObservedResponse): ContractVerdict {
    const path = new URL(response.url, "http://localhost").pathname;
    const label = `${response.method} ${response.url} -> ${response.status}`;
    if (response.status === 400 && problemTypeOf(response.body)?.endsWith("/bad-request")) {
      // A head that is not valid HTTP/1.1 (a malformed or repeated Host too) is refused before any path is read.
      return this.verdict(label, response, 400, this.deref(this.components("responses").BadRequest));
    }
    if (response.status === 414) {
      // A query with more parameters than the parser reads is refused before any route, as above.
      return this.verdict(label, response, 414, this.deref(this.components("responses").TooManyQueryParameters));
    }
    const pathItem = this.findPath(path);
    if (pathItem === undefined) {
      const undocumented = UNDOCUMENTED_PATHS.find((p) => path.startsWith(p.prefix));
      if (undocumented !== undefined) return { kind: "undocumented-path", reason: undocumented.reason };
      // An unknown path answers the shared NotFound problem, once the rate limit let it through.
      if (response.status === 429) {
        return this.verdict(label, response, 429, this.deref(this.components("responses").RateLimited));
      }
      return this.verdict(label, response, 404, this.deref(this.components("responses").NotFound));
    }
    const operation = pathItem[response.method.toLowerCase()] as Json | undefined;
    if (operation === undefined || !HTTP_METHODS.includes(response.method.toLowerCase())) {
      if (response.method === "OPTIONS" && response.status === 204) {
        // A CORS preflight answered by the CORS layer (CORS_ORIGINS): no body, and it names what it allows.
        return this.verdict(label, response, 204, {
          headers: { "Access-Control-Allow-Methods": { required: true, schema: { type: "string" } } },
        });
      }
      if (response.status === 413) {
        // The body limit is checked before routing, so an oversized body meets it before the 405.
        return this.verdict(label, response, 413, this.deref(this.components("responses").PayloadTooLarge));
      }
      // Methods a path does not document answer the shared MethodNotAllowed problem.
      return this.verdict(label, response, 405, this.deref(this.components("responses").MethodNotAllowed));
    }
    const responses = (operation.responses ?? {}) as Json;
    const documented = responses[String(response.status)] ?? responses.default;
    if (documented === undefined) {
      return {
        kind: "checked",
        violations: [`${label}: status ${response.status} is not documented for this operation`],
      };
    }
    return this.verdict(label, response, response.status, this.deref(documented));
  }

  private verdict(label: string, response: ObservedResponse, status: number, documented: Json): ContractVerdict {
    const violations: string[] = [];
    if (response.status !== status) violations.push(`expected status ${status}, got ${response.status}`);
    violations.push(...this.checkHeaders(response, (documented.headers ?? {}) as Json));
    violations.push(...this.checkContent(response, documented.content as Json | undefined));
    return { kind: "checked", violations: violations.map((v) => `${label}: ${v}`) };
  }

  private checkHeaders(response: ObservedResponse, headers: Json): string[] {
    const violations: string[] = [];
    for (const [name, declared] of Object.entries(headers)) {
      const header = this.deref(declared);
      const raw = response.headers[name.toLowerCase()];
      if (raw === undefined) {
        if (header.required === true) violations.push(`missing required header ${name}`);
        continue;
      }
      const value = Array.isArray(raw) ? raw.join(", ") : String(raw);
      const validate = this.validator(this.headerAjv, `header:${JSON.stringify(header.schema)}`, {
        type: "object",
        properties: { value: header.schema },
      });
      if (!validate({ value })) violations.push(`header ${name}: "${value}" ${this.ajv.errorsText(validate.errors)}`);
    }
    return violations;
  }

  private checkContent(response: ObservedResponse, content: Json | undefined): string[] {
    const contentType = response.headers["content-type"];
    if (content === undefined) {
      return response.body.length > 0 ? [`a body where the document has none (${response.body.length} bytes)`] : [];
    }
    if (response.method === "HEAD") {
      return response.body.length > 0 ? ["a body in a response to HEAD"] : [];
    }
    const mediaType = typeof contentType === "string" ? contentType.split(";")[0]?.trim().toLowerCase() : undefined;
    const media = mediaType === undefined ? undefined : (content[mediaType] as Json | undefined);
    if (media === undefined) {
      return [`content type ${String(contentType)} is not one of ${Object.keys(content).join(", ")}`];
    }
    let body: unknown = decoded(response).toString("utf8");
    if (/[/+]json$/.test(mediaType ?? "")) {
      try {
        body = JSON.parse(body as string);
      } catch {
        return [`the body is not JSON: ${(body as string).slice(0, 200)}`];
      }
    }
    const validate = this.validator(this.ajv, `body:${JSON.stringify(media.schema)}`, media.schema as Json);
    return validate(body) ? [] : [`body ${this.ajv.errorsText(validate.errors, { dataVar: "body" })}`];
  }

  private validator(ajv: Ajv2020, key: string, schema: Json): ValidateFunction {
    const cached = this.validators.get(key);
    if (cached !== undefined) return cached;
    const validate = ajv.compile(withAbsoluteRefs(schema));
    this.validators.set(key, validate);
    return validate;
  }

  private findPath(path: string): Json | undefined {
    for (const [template, item] of Object.entries((this.document.paths ?? {}) as Json)) {
      const pattern = new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`,
      );
      if (pattern.test(path)) return item as Json;
    }
    return undefined;
  }

  private components(kind: string): Json {
    return ((this.document.components as Json | undefined)?.[kind] ?? {}) as Json;
  }

  /** Follows a local `#/components/...` reference of the document. */
  private deref(value: unknown): Json {
    let current = value as Json;
    while (typeof current.$ref === "string") {
      const [, kind, name] = current.$ref.match(/^#\/components\/([^/]+)\/([^/]+)$/) ?? [];
      const target = kind && name ? this.components(kind)[name] : undefined;
      if (target === undefined) throw new Error(`unresolvable $ref ${current.$ref}`);
      current = target as Json;
    }
    return current;
  }
}

/** The `type` of a problem body, if the body is one. */
function problemTypeOf(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { type?: unknown };
    return typeof parsed.type === "string" ? parsed.type : undefined;
  } catch {
    return undefined;
  }
}
