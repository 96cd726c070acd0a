import {
  PAGINATION,
  paginationMeta,
  type WebhookDeliveries,
  type WebhookDeliveryResource,
  type WebhookResource,
} from "@community/domain";
import type { DeliveryRow, WebhookSubscriptionRow } from "./webhook-subscriptions.repository";

const time = (at: Date | null): string | null => (at === null ? null : at.toISOString());

export function webhookResource(row: WebhookSubscriptionRow, now = new Date()): WebhookResource {
  const overlap = row.previousSecretExpiresAt;
  return {
    id: row.id,
    url: row.url,
    lists: row.lists,
    description: row.description,
    status: row.status,
    status_reason: row.statusReason,
    created_at: row.createdAt.toISOString(),
    status_changed_at: time(row.statusChangedAt),
    previous_secret_expires_at: overlap !== null && overlap > now ? overlap.toISOString() : null,
  };
}

export function deliveryResource(row: DeliveryRow): WebhookDeliveryResource {
  return {
    id: row.id,
    type: row.type as WebhookDeliveryResource["type"],
    list: row.list as WebhookDeliveryResource["list"],
    state: row.state,
    attempts: row.attempts,
    last_status_code: row.lastStatus,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    last_attempt_at: time(row.lastAttemptAt),
    next_attempt_at: row.state === "pending" ? time(row.nextAttemptAt) : null,
    completed_at: time(row.completedAt),
  };
}

/** A page of the delivery log: newest first, `meta.pagination` as a list's page mode. */
export function deliveriesPage(items: DeliveryRow[], total: number, page: number, perPage: number): WebhookDeliveries {
  return {
    deliveries: items.map(deliveryResource),
    meta: { pagination: paginationMeta({ page, perPage: Math.min(perPage, PAGINATION.perPage.max) }, total) },
  };
}
