import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  ValidationPipe,
} from "@nestjs/common";
import { json } from "body-parser";
import type { Request, Response } from "express";
import type { Observable } from "rxjs";
import { PayloadTooLargeException } from "../security/security.problems";
import { InvalidBodyException, UnsupportedMediaTypeException } from "./problems";
import { validationOptions } from "./validation.pipe";

/** The bodies the api takes are small objects (a webhook's URL and lists, a calendar feed's name). */
export const JSON_BODY_LIMIT_BYTES = 16 * 1024;

const parseJson = json({ limit: JSON_BODY_LIMIT_BYTES, strict: true, type: () => true });

/**
 * Parses the JSON body of the route it intercepts (the api has no global body parser), after the
 * guards (a request without a valid token is a 401 whatever its body): only `application/json`
 * (415 otherwise), at most JSON_BODY_LIMIT_BYTES (413), and then the DTO's pipe wants an object
 * (400 invalid-body naming `body` for malformed JSON, another JSON value or no body).
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const length = request.headers["content-length"];
    const chunked = request.headers["transfer-encoding"] !== undefined;
    if ((length === undefined || length === "0") && !chunked) {
      request.body = undefined;
      return next.handle();
    }
    const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json") throw new UnsupportedMediaTypeException();
    await new Promise<void>((resolve, reject) => {
      parseJson(request, http.getResponse<Response>(), (error?: unknown) =>
        error === undefined ? resolve() : reject(bodyProblem(error)),
      );
    });
    return next.handle();
  }
}

function bodyProblem(error: unknown): Error {
  const { status, type } = error as { status?: number; type?: string };
  if (status === 413) return new PayloadTooLargeException(JSON_BODY_LIMIT_BYTES);
  const message = type === "entity.parse.failed" ? "must be a JSON object" : "cannot be read";
  return new InvalidBodyException([{ parameter: "body", message }]);
}

/** Validates a body DTO; an invalid one is an invalid-body problem naming every bad field. */
export class JsonBodyValidationPipe extends ValidationPipe {
  /** `optional`: a request without a body is validated as an empty object. */
  constructor(private readonly body: { optional: boolean } = { optional: false }) {
    super(validationOptions((errors) => new InvalidBodyException(errors)));
  }

  override async transform(value: unknown, metadata: Parameters<ValidationPipe["transform"]>[1]): Promise<unknown> {
    if (metadata.type === "body" && value === undefined && this.body.optional) return super.transform({}, metadata);
    if (metadata.type === "body" && (typeof value !== "object" || value === null || Array.isArray(value))) {
      throw new InvalidBodyException([{ parameter: "body", message: "must be a JSON object" }]);
    }
    return super.transform(value, metadata);
  }
}
