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
import { validationOptions } from "../common/validation.pipe";
import { PayloadTooLargeException } from "../security/security.problems";
import { InvalidBodyException, UnsupportedMediaTypeException } from "./webhooks.problems";

/** A subscription's body holds a URL, two list names and a short description. */
export const WEBHOOK_BODY_LIMIT_BYTES = 16 * 1024;

const parseJson = json({ limit: WEBHOOK_BODY_LIMIT_BYTES, strict: true, type: () => true });

/**
 * Parses the JSON body of the route it intercepts (the api has no global body parser), after the
 * guards (a request without a valid token is a 401 whatever its body): only `application/json`
 * (415 otherwise), at most WEBHOOK_BODY_LIMIT_BYTES (413), and then the DTO's pipe wants an object
 * (400 invalid-body naming `body` for malformed JSON, another JSON value or no body).
 */
@Injectable()
export class WebhookBodyInterceptor implements NestInterceptor {
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
  if (status === 413) return new PayloadTooLargeException(WEBHOOK_BODY_LIMIT_BYTES);
  const message = type === "entity.parse.failed" ? "must be a JSON object" : "cannot be read";
  return new InvalidBodyException([{ parameter: "body", message }]);
}

/** Validates a webhooks body DTO; an invalid one is an invalid-body problem naming every bad field. */
export class WebhookBodyValidationPipe extends ValidationPipe {
  constructor() {
    super(validationOptions((errors) => new InvalidBodyException(errors)));
  }

  override async transform(value: unknown, metadata: Parameters<ValidationPipe["transform"]>[1]): Promise<unknown> {
    if (metadata.type === "body" && (typeof value !== "object" || value === null || Array.isArray(value))) {
      throw new InvalidBodyException([{ parameter: "body", message: "must be a JSON object" }]);
    }
    return super.transform(value, metadata);
  }
}
