import { randomBytes } from "node:crypto";
import type { Database } from "@community/db";
import type { ListName } from "@community/db/lists";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";

/** Who owns a subscription: the user and the OAuth client of the token that created it. */
export interface WebhookOwner {
  userId: string;
  clientId: string;
}

export type WebhookStatus = "active" | "disabled" | "revoked";
export type WebhookCredential = "grant" | "token" | "issuer";

export interface WebhookSubscriptionRow {
  id: string;
  url: string;
  lists: ListName[];
  description: string;
  status: WebhookStatus;
  statusReason: string | null;
  statusChangedAt: Date | null;
  createdAt: Date;
  previousSecretExpiresAt: Date | null;
}

export interface NewSubscription extends WebhookOwner {
  id: string;
  teamId: string;
  credential: WebhookCredential;
  grantHash: string | null;
  url: string;
  receiver: string;
  lists: ListName[];
  description: string;
  secret: unknown;
  ping: { id: string; body: string; status: number; at: Date };
}

export interface DeliveryRow {
  id: string;
  type: string;
  list: string | null;
  state: "pending" | "delivered" | "failed";
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  completedAt: Date | null;
}

const SUBSCRIPTION_FIELDS = {
  id: true,
  url: true,
  lists: true,
  description: true,
  status: true,
  statusReason: true,
  statusChangedAt: true,
  createdAt: true,
  previousSecretExpiresAt: true,
} as const;

const DELIVERY_FIELDS = {
  id: true,
  type: true,
  list: true,
  state: true,
  attempts: true,
  lastStatus: true,
  lastError: true,
  createdAt: true,
  lastAttemptAt: true,
  nextAttemptAt: true,
  completedAt: true,
} as const;

/** A new subscription id: "wh_" and 22 base64url characters (16 random bytes). */
export function newSubscriptionId(): string {
  return `wh_${randomBytes(16).toString("base64url")}`;
}

/** A new notice id (its webhook-id): "msg_" and 32 hex digits, as the database makes them. */
export function newNoticeId(): string {
  return `msg_${randomBytes(16).toString("hex")}`;
}

/** Whether `id` could name a subscription or a delivery (anything else is answered 404 unread). */
export const SUBSCRIPTION_ID = /^wh_[A-Za-z0-9_-]{22}$/;
export const NOTICE_ID = /^msg_[0-9a-f]{32}$/;

/**
 * The subscriptions and their delivery log, through Prisma, always scoped to their owner: another
 * user's or another client's subscription is never read, changed or told apart from a missing one.
 */
@Injectable()
export class WebhookSubscriptionsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  list(owner: WebhookOwner): Promise<WebhookSubscriptionRow[]> {
    return this.database.prisma.webhookSubscription.findMany({
      where: { userId: owner.userId, clientId: owner.clientId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: SUBSCRIPTION_FIELDS,
    }) as Promise<WebhookSubscriptionRow[]>;
  }

  find(owner: WebhookOwner, id: string): Promise<WebhookSubscriptionRow | null> {
    if (!SUBSCRIPTION_ID.test(id)) return Promise.resolve(null);
    return this.database.prisma.webhookSubscription.findFirst({
      where: { id, userId: owner.userId, clientId: owner.clientId },
      select: SUBSCRIPTION_FIELDS,
    }) as Promise<WebhookSubscriptionRow | null>;
  }

  /**
   * Stores a subscription whose URL answered the ping, with the ping in its log, unless the owner
   * has `max` already: one transaction, serialized per owner (an advisory lock), so that two
   * creations at once cannot pass the bound together. Null when the bound is reached.
   */
  async create(subscription: NewSubscription, max: number): Promise<WebhookSubscriptionRow | null> {
    const { ping, ...fields } = subscription;
    return this.database.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`webhooks:${fields.userId}:${fields.clientId}`}, 0))`;
      const owned = await tx.webhookSubscription.count({ where: { userId: fields.userId, clientId: fields.clientId } });
      if (owned >= max) return null;
      const created = await tx.webhookSubscription.create({
        data: { ...fields, secret: fields.secret as object },
        select: SUBSCRIPTION_FIELDS,
      });
      await tx.webhookDelivery.create({
        data: {
          id: ping.id,
          subscriptionId: fields.id,
          type: "webhook.ping",
          body: ping.body,
          state: "delivered",
          attempts: 1,
          lastStatus: ping.status,
          createdAt: ping.at,
          lastAttemptAt: ping.at,
          completedAt: new Date(),
        },
      });
      return created as WebhookSubscriptionRow;
    });
  }

  /** Deletes the subscription (its log and pending notices with it); false when the owner has none such. */
  async delete(owner: WebhookOwner, id: string): Promise<boolean> {
    if (!SUBSCRIPTION_ID.test(id)) return false;
    const { count } = await this.database.prisma.webhookSubscription.deleteMany({
      where: { id, userId: owner.userId, clientId: owner.clientId },
    });
    return count === 1;
  }

  /** Replaces the secret; the one it replaces signs beside it until `overlapUntil`. */
  async rotateSecret(
    owner: WebhookOwner,
    id: string,
    secret: unknown,
    overlapUntil: Date,
  ): Promise<WebhookSubscriptionRow | null> {
    if (!SUBSCRIPTION_ID.test(id)) return null;
    return this.database.prisma.$transaction(async (tx) => {
      // The secret being replaced, read under the row's lock: of two rotations at once, the
      // second waits and keeps the first's new secret as its previous one, so none is lost.
      const [current] = await tx.$queryRaw<{ secret: unknown }[]>`
        SELECT secret FROM webhook_subscriptions
         WHERE id = ${id} AND user_id = ${owner.userId} AND client_id = ${owner.clientId}
           FOR UPDATE`;
      if (current === undefined) return null;
      const rotated = await tx.webhookSubscription.update({
        where: { id },
        data: {
          secret: secret as object,
          previousSecret: current.secret as object,
          previousSecretExpiresAt: overlapUntil,
        },
        select: SUBSCRIPTION_FIELDS,
      });
      return rotated as WebhookSubscriptionRow;
    });
  }

  /** A page of the subscription's log, newest first, and the log's length. */
  async deliveries(
    owner: WebhookOwner,
    id: string,
    page: { offset: number; limit: number },
  ): Promise<{ subscriptionId: string; items: DeliveryRow[]; total: number } | null> {
    const subscription = await this.find(owner, id);
    if (subscription === null) return null;
    const [items, total] = await Promise.all([
      this.database.prisma.webhookDelivery.findMany({
        where: { subscriptionId: id },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        skip: page.offset,
        take: page.limit,
        select: DELIVERY_FIELDS,
      }),
      this.database.prisma.webhookDelivery.count({ where: { subscriptionId: id } }),
    ]);
    return { subscriptionId: subscription.id, items: items as DeliveryRow[], total };
  }

  /**
   * Makes a logged notice due again at once, with the same id and body (its attempts go on from
   * where they were); its sending job is added in the same transaction. Null when the owner has no
   * such subscription or delivery.
   */
  async redeliver(
    owner: WebhookOwner,
    id: string,
    deliveryId: string,
  ): Promise<{ subscription: WebhookSubscriptionRow; delivery: DeliveryRow } | null> {
    if (!NOTICE_ID.test(deliveryId)) return null;
    const subscription = await this.find(owner, id);
    if (subscription === null) return null;
    return this.database.prisma.$transaction(async (tx) => {
      // Out of coalescing: a notice of its list made meanwhile is not held back by this one.
      const updated = await tx.webhookDelivery.updateMany({
        where: { id: deliveryId, subscriptionId: id },
        data: { state: "pending", coalesces: false, nextAttemptAt: new Date(), completedAt: null },
      });
      if (updated.count === 0) return null;
      await tx.$executeRaw`SELECT webhook_enqueue(d.id, s.receiver, now(), 'replace')
                             FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
                            WHERE d.id = ${deliveryId}`;
      const delivery = await tx.webhookDelivery.findUniqueOrThrow({
        where: { id: deliveryId },
        select: DELIVERY_FIELDS,
      });
      return { subscription, delivery: delivery as DeliveryRow };
    });
  }
}
