import { FieldErrorsException, ProblemException, problemTypes } from "../common/problems";

/** The webhooks' problem types (contract 10.2). */
// Entries of one shape in every *.problems.ts, repeated on purpose: data, not logic.
export const WEBHOOK_PROBLEMS = problemTypes({
  WebhookNotFound: {
    type: "webhook-not-found",
    status: 404,
    title: "Webhook not found",
    docs: "No subscription (or delivery) with this id belongs to the caller's user and client.",
    example: { detail: "No webhook subscription with this id" },
  },
  WebhookUnreachable: {
    type: "webhook-unreachable",
    status: 422,
    title: "Webhook unreachable",
    docs: "The URL did not answer the signed webhook.ping with a 2xx within 10 s (an error status, a redirect, no answer, or an address refused at connection); nothing was stored. `errors` names `url`.",
    requires: ["errors"],
    example: {
      detail: "url answered the ping with 404",
      errors: [{ parameter: "url", message: "answered the ping with 404" }],
    },
  },
  WebhookLimit: {
    type: "webhook-limit",
    status: 409,
    title: "Too many webhooks",
    docs: "The caller's user and client already have the most subscriptions allowed (WEBHOOK_SUBSCRIPTIONS_MAX, 10 by default).",
    example: { detail: "At most 10 webhook subscriptions per user and client" },
  },
  WebhookInactive: {
    type: "webhook-inactive",
    status: 409,
    title: "Webhook not active",
    docs: "The subscription is disabled or revoked: it sends nothing, redelivered notices included.",
    example: { detail: "The webhook subscription is disabled: the receiver answered 410 Gone" },
  },
  WebhooksUnavailable: {
    type: "webhooks-unavailable",
    status: 501,
    title: "Webhooks unavailable",
    docs: "Webhooks need PostgreSQL (DATABASE_URL): the embedded database holds no job queue.",
    example: { detail: "Webhooks need PostgreSQL: set DATABASE_URL" },
  },
});

export class WebhookNotFoundException extends ProblemException {
  constructor(what: "subscription" | "delivery" = "subscription") {
    super(
      WEBHOOK_PROBLEMS.WebhookNotFound,
      what === "subscription"
        ? "No webhook subscription with this id"
        : "No delivery with this id in this webhook's log",
    );
  }
}

/** The ping that creating a subscription sends was not answered 2xx. */
export class WebhookUnreachableException extends FieldErrorsException {
  constructor(message: string) {
    super(WEBHOOK_PROBLEMS.WebhookUnreachable, [{ parameter: "url", message }]);
  }
}

export class WebhookLimitException extends ProblemException {
  constructor(max: number) {
    super(WEBHOOK_PROBLEMS.WebhookLimit, `At most ${max} webhook subscriptions per user and client`);
  }
}

export class WebhookInactiveException extends ProblemException {
  constructor(status: string, reason: string | null) {
    super(
      WEBHOOK_PROBLEMS.WebhookInactive,
      `The webhook subscription is ${status}${reason === null ? "" : `: ${reason}`}`,
    );
  }
}

export class WebhooksUnavailableException extends ProblemException {
  constructor() {
    super(WEBHOOK_PROBLEMS.WebhooksUnavailable, "Webhooks need PostgreSQL: set DATABASE_URL");
  }
}
