import { LIST_NAMES, TEAM_LIST_BASE_PATH, WEBHOOKS_SCOPE } from "@community/domain";
import { type Json, jsonContent, listOperation, okJson, operationBuilder, pathParameter } from "./resource-operations";

const PATH = `${TEAM_LIST_BASE_PATH}/webhooks`;
const TAG = "webhooks";
const tags = [TAG];

const idParameter = pathParameter(
  "id",
  "The subscription's id. Another user's or client's is answered as unknown (404).",
);
const deliveryParameter = pathParameter("delivery", "A notice's webhook-id from the delivery log.");

/** Webhooks need PostgreSQL, and any of their operations may meet a query string with too many parameters. */
const operation = operationBuilder(TAG, WEBHOOKS_SCOPE, ["TooManyQueryParameters", "WebhooksUnavailable"]);

/** The webhooks' paths (contract 10.2), and the notice as an OpenAPI 3.1 webhook. */
export function webhookPaths(): Record<string, Json> {
  return {
    [PATH]: {
      post: operation(
        {
          operationId: "createWebhook",
          summary: "Subscribe a URL to notices of the team's lists",
          description:
            "Checks the URL (https unless its host is allowed by WEBHOOK_ALLOWED_HOSTS; no credentials; no address in the loopback, private, link-local, unique-local, multicast or reserved ranges, however spelled, unless its host is allowed), then POSTs it a signed webhook.ping: only a 2xx within 10 s creates the subscription. The secret is shown in this answer only. At most 10 subscriptions per user and client.",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["url", "lists"],
                  properties: {
                    url: { type: "string", format: "uri", maxLength: 2048 },
                    lists: {
                      type: "array",
                      minItems: 1,
                      uniqueItems: true,
                      items: { type: "string", enum: LIST_NAMES },
                    },
                    description: { type: "string", maxLength: 500 },
                  },
                },
                example: { url: "https://receiver.example.com/hooks/community", lists: LIST_NAMES },
              },
            },
          },
          responses: {
            "201": {
              description: "Created: the URL answered the ping. Location names the subscription.",
              headers: { Location: { description: "The subscription's path.", schema: { type: "string" } } },
              content: jsonContent("WebhookWithSecret"),
            },
          },
        },
        ["InvalidBody", "NoCommunityTeam", "WebhookLimit", "UnsupportedMediaType", "WebhookUnreachable"],
      ),
      get: operation(
        listOperation("listWebhooks", "The caller's subscriptions (of this user and client)", {
          description: "The subscriptions.",
          schema: "WebhookList",
        }),
        [],
      ),
    },
    [`${PATH}/{id}`]: {
      parameters: [idParameter],
      get: operation(
        {
          operationId: "getWebhook",
          summary: "One subscription",
          description: "Its status, and why when it is disabled or revoked.",
          responses: okJson("The subscription.", "Webhook"),
        },
        ["WebhookNotFound"],
      ),
      delete: operation(
        {
          operationId: "deleteWebhook",
          summary: "Delete a subscription",
          description: "Its log and pending notices go with it; nothing more is sent.",
          responses: { "204": { description: "Deleted." } },
        },
        ["WebhookNotFound"],
      ),
    },
    [`${PATH}/{id}/rotate-secret`]: {
      parameters: [idParameter],
      post: operation(
        {
          operationId: "rotateWebhookSecret",
          summary: "A new signing secret",
          description:
            "The new secret signs every notice from now on; the one it replaces signs beside it (two signatures in webhook-signature) for 24 h, so that a receiver can switch without losing a notice.",
          responses: {
            "200": { description: "The subscription with its new secret.", content: jsonContent("WebhookWithSecret") },
          },
        },
        ["WebhookNotFound"],
      ),
    },
    [`${PATH}/{id}/deliveries`]: {
      parameters: [idParameter],
      get: operation(
        {
          operationId: "listWebhookDeliveries",
          summary: "The delivery log",
          description:
            "Every notice made for the subscription (the ping included), newest first, paginated as a list's page mode: its attempts, the last status code and error, and its state.",
          parameters: [{ $ref: "#/components/parameters/page" }, { $ref: "#/components/parameters/per_page" }],
          responses: {
            "200": {
              description: "A page of the log, with the Link and X-Total-Count headers of a list's page mode.",
              headers: {
                Link: { $ref: "#/components/headers/Link" },
                "X-Total-Count": { $ref: "#/components/headers/X-Total-Count" },
              },
              content: jsonContent("WebhookDeliveries"),
            },
          },
        },
        ["InvalidQuery", "WebhookNotFound"],
      ),
    },
    [`${PATH}/{id}/deliveries/{delivery}/redeliver`]: {
      parameters: [idParameter, deliveryParameter],
      post: operation(
        {
          operationId: "redeliverWebhookNotice",
          summary: "Send a logged notice again",
          description:
            "The same webhook-id and body, signed anew, now; then retried on the schedule if it is not answered 2xx.",
          responses: { "202": { description: "Due again.", content: jsonContent("WebhookRedelivery") } },
        },
        ["WebhookNotFound", "WebhookInactive"],
      ),
    },
  };
}

/** The notice, as OpenAPI 3.1's `webhooks` describe what an api sends. */
export function webhookNotices(): Record<string, Json> {
  return {
    listChanged: {
      post: {
        operationId: "listChangedNotice",
        tags,
        // Sent by the api to the subscriber's URL: no token; the receiver checks the signature.
        security: [],
        summary: "A list of the team changed: ask its changes feed",
        description:
          "Standard Webhooks: webhook-id (the same on every retry), webhook-timestamp (Unix seconds of the attempt) and webhook-signature (v1,<base64 HMAC-SHA256 of id.timestamp.body keyed with the secret's bytes>; two, space-separated, while a rotated secret overlaps). Answer 2xx within 15 s; otherwise it is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h and 10 h (Retry-After honoured on 429 and 503), then the subscription is disabled; 410 disables it at once. Notices are coalesced and may repeat or come out of order: the feed is the truth.",
        parameters: ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => ({
          name,
          in: "header",
          required: true,
          schema: { type: "string" },
        })),
        requestBody: { required: true, content: jsonContent("WebhookNotice") },
        responses: { "204": { description: "Any 2xx: received." } },
      },
    },
  };
}
