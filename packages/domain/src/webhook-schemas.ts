import { z } from "zod";
import { LIST_CHANGED_NOTICES, LIST_NAMES } from "./team-lists";
import { paginationSchema, wireRegistry } from "./wire-schemas";

/**
 * The webhooks' wire types (contract 10.2), described once with zod: the api's responses, the
 * notice a receiver gets, and the OpenAPI document's schemas (registered in wireRegistry).
 */
const instant = z.string().meta({
  format: "date-time",
  description: "RFC 3339 in UTC with milliseconds (toISOString).",
  examples: ["2026-03-01T18:30:00.000Z"],
});

const listName = z.enum(LIST_NAMES);
const noticeType = z.enum([...LIST_CHANGED_NOTICES, "webhook.ping"]);

export const webhookSchema = z
  .strictObject({
    id: z
      .string()
      .regex(/^wh_[A-Za-z0-9_-]{22}$/)
      .meta({ examples: ["wh_2sT9bW0mX1qfVY7g3kPz4A"] }),
    url: z.string().meta({ format: "uri", description: "Where notices are POSTed." }),
    lists: z.array(listName).min(1).meta({ description: "The lists whose changes are told." }),
    description: z.string(),
    status: z.enum(["active", "disabled", "revoked"]).meta({
      description:
        "active; disabled (the receiver answered 410, or the retry schedule ran out); revoked (the user left the team, the grant was revoked or the client deleted). Only an active subscription is sent anything.",
    }),
    status_reason: z.string().nullable().meta({ description: "Why it is disabled or revoked; null while active." }),
    created_at: instant,
    status_changed_at: instant.nullable(),
    previous_secret_expires_at: instant
      .nullable()
      .meta({ description: "Until when the secret before the last rotation still signs beside the current one." }),
  })
  .register(wireRegistry, { id: "Webhook", description: "A webhook subscription (never its secret)." });

export const webhookWithSecretSchema = webhookSchema
  .extend({
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/)
      .meta({ description: "The signing secret: whsec_ and base64 of 32 random bytes. Shown this once." }),
  })
  .register(wireRegistry, {
    id: "WebhookWithSecret",
    description: "A subscription just created or rotated, with its (new) signing secret.",
  });

export const webhookListSchema = z
  .strictObject({ webhooks: z.array(webhookSchema) })
  .register(wireRegistry, { id: "WebhookList", description: "The caller's subscriptions, oldest first." });

export const webhookDeliverySchema = z
  .strictObject({
    id: z.string().meta({ description: "The notice's webhook-id, the same on every attempt and redelivery." }),
    type: noticeType,
    list: listName.nullable(),
    state: z.enum(["pending", "delivered", "failed"]),
    attempts: z.int().min(0),
    last_status_code: z
      .int()
      .nullable()
      .meta({ description: "The receiver's status of the last attempt; null if none answered." }),
    last_error: z.string().nullable(),
    created_at: instant,
    last_attempt_at: instant.nullable(),
    next_attempt_at: instant.nullable().meta({ description: "When a pending notice is tried next." }),
    completed_at: instant.nullable(),
  })
  .register(wireRegistry, { id: "WebhookDelivery", description: "One notice of the delivery log." });

export const webhookDeliveriesSchema = z
  .strictObject({
    deliveries: z.array(webhookDeliverySchema),
    meta: z.strictObject({ pagination: paginationSchema }),
  })
  .register(wireRegistry, { id: "WebhookDeliveries", description: "A page of the delivery log, newest first." });

export const redeliverySchema = z
  .strictObject({ delivery: webhookDeliverySchema })
  .register(wireRegistry, { id: "WebhookRedelivery", description: "The notice made due again." });

export const webhookNoticeSchema = z
  .strictObject({
    type: noticeType,
    timestamp: instant,
    data: z.strictObject({
      list: listName,
      changes: z.string().meta({
        description: "The changes feed to ask, with the receiver's own token.",
        examples: ["/v1/me/community/team/events/changes"],
      }),
    }),
  })
  .register(wireRegistry, {
    id: "WebhookNotice",
    description:
      "The body of a notice (Standard Webhooks): which list to read again, never what changed. Signed in webhook-signature.",
  });

export type WebhookResource = z.infer<typeof webhookSchema>;
export type WebhookWithSecret = z.infer<typeof webhookWithSecretSchema>;
export type WebhookDeliveryResource = z.infer<typeof webhookDeliverySchema>;
export type WebhookDeliveries = z.infer<typeof webhookDeliveriesSchema>;
export type WebhookNotice = z.infer<typeof webhookNoticeSchema>;
