import type { Database } from "@community/db";
import type { ListName } from "@community/db/lists";
import { Inject, Injectable } from "@nestjs/common";
import type { Member } from "../auth/member";
import { InvalidBodyException } from "../common/problems";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { DATABASE } from "../database/database.tokens";
import type { CreateWebhookDto } from "./dto/create-webhook.dto";
import { postNotice } from "./outbound/post-notice";
import { checkWebhookUrl, resolveAndCheck } from "./outbound/webhook-url";
import { WebhookDeliveryWorker } from "./webhook-delivery.worker";
import { newWebhookSecret, SECRET_OVERLAP_SECONDS, signedHeaders, storedSecret } from "./webhook-secrets";
import {
  type DeliveryRow,
  newNoticeId,
  newSubscriptionId,
  type WebhookCredential,
  type WebhookOwner,
  type WebhookSubscriptionRow,
  WebhookSubscriptionsRepository,
} from "./webhook-subscriptions.repository";
import {
  WebhookInactiveException,
  WebhookLimitException,
  WebhookNotFoundException,
  WebhooksUnavailableException,
  WebhookUnreachableException,
} from "./webhooks.problems";
import { webhooksDatabaseUrl } from "./webhooks-availability";

/** The body of a notice (contract 10.2): what changed, never what it changed to. */
export function noticeBody(type: string, list: ListName, at: Date): string {
  return JSON.stringify({
    type,
    timestamp: at.toISOString(),
    data: { list, changes: `/v1/me/community/team/${list}/changes` },
  });
}

/**
 * The webhooks use cases, each scoped to the caller's user and client (WebhookOwner): create
 * (after the URL's checks and a signed ping it must answer 2xx), list, read, delete, rotate the
 * secret, read the delivery log and redeliver a notice.
 */
@Injectable()
export class WebhooksService {
  private readonly available: boolean;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) database: Database,
    private readonly subscriptions: WebhookSubscriptionsRepository,
    private readonly worker: WebhookDeliveryWorker,
  ) {
    this.available = webhooksDatabaseUrl(config, database) !== undefined;
  }

  /** Throws 501 on the embedded database, which cannot carry the delivery queue. */
  assertAvailable(): void {
    if (!this.available) throw new WebhooksUnavailableException();
  }

  async create(
    member: Member,
    body: CreateWebhookDto,
  ): Promise<{ subscription: WebhookSubscriptionRow; secret: string }> {
    const { allowedHosts, pingTimeoutMs, timeoutMs, subscriptionsMax } = this.config.webhooks;
    const checked = checkWebhookUrl(body.url, allowedHosts);
    if ("problem" in checked) throw new InvalidBodyException([{ parameter: "url", message: checked.problem }]);
    const refused = await resolveAndCheck(checked.url, allowedHosts);
    if (refused !== null) throw new InvalidBodyException([{ parameter: "url", message: refused }]);

    const owner = ownerOf(member);
    if ((await this.subscriptions.list(owner)).length >= subscriptionsMax)
      throw new WebhookLimitException(subscriptionsMax);

    const id = newSubscriptionId();
    const secret = newWebhookSecret();
    const ping = { id: newNoticeId(), at: new Date() };
    const pingBody = noticeBody("webhook.ping", body.lists[0] as ListName, ping.at);
    const answer = await postNotice(
      checked.url,
      { headers: signedHeaders(ping.id, pingBody, [secret], ping.at), body: pingBody },
      { allowedHosts, timeoutMs: Math.min(pingTimeoutMs, timeoutMs) },
    );
    if (answer.kind !== "answered") throw new WebhookUnreachableException(`did not answer the ping: ${answer.reason}`);
    if (answer.status < 200 || answer.status > 299) {
      throw new WebhookUnreachableException(`answered the ping with ${answer.status}, not 2xx`);
    }
    const subscription = await this.subscriptions.create(
      {
        ...owner,
        id,
        teamId: member.teamId as string,
        ...credentialOf(member),
        url: checked.url.href,
        receiver: checked.url.origin,
        lists: body.lists,
        description: body.description ?? "",
        secret: storedSecret(secret, this.config.oauth.keyEncryptionKey, id),
        ping: { id: ping.id, body: pingBody, status: answer.status, at: ping.at },
      },
      subscriptionsMax,
    );
    if (subscription === null) throw new WebhookLimitException(subscriptionsMax);
    // This replica's worker, if it was idle, starts now: the first notice is not left for a sweep.
    void this.worker.ensureStarted();
    return { subscription, secret };
  }

  list(member: Member): Promise<WebhookSubscriptionRow[]> {
    return this.subscriptions.list(ownerOf(member));
  }

  async get(member: Member, id: string): Promise<WebhookSubscriptionRow> {
    return (await this.subscriptions.find(ownerOf(member), id)) ?? notFound();
  }

  async delete(member: Member, id: string): Promise<void> {
    if (!(await this.subscriptions.delete(ownerOf(member), id))) notFound();
  }

  async rotateSecret(member: Member, id: string): Promise<{ subscription: WebhookSubscriptionRow; secret: string }> {
    const secret = newWebhookSecret();
    const overlapUntil = new Date(Date.now() + SECRET_OVERLAP_SECONDS * 1000);
    const subscription = await this.subscriptions.rotateSecret(
      ownerOf(member),
      id,
      storedSecret(secret, this.config.oauth.keyEncryptionKey, id),
      overlapUntil,
    );
    return subscription === null ? notFound() : { subscription, secret };
  }

  async deliveries(
    member: Member,
    id: string,
    page: { page: number; perPage: number },
  ): Promise<{ subscriptionId: string; items: DeliveryRow[]; total: number }> {
    const offset = (page.page - 1) * page.perPage;
    const owner = ownerOf(member);
    // Past any page a number can name: an empty page, as a list's (the log's length still counted).
    const limit = Number.isSafeInteger(offset + page.perPage) ? page.perPage : 0;
    return (await this.subscriptions.deliveries(owner, id, { offset: limit === 0 ? 0 : offset, limit })) ?? notFound();
  }

  async redeliver(member: Member, id: string, deliveryId: string): Promise<DeliveryRow> {
    const owner = ownerOf(member);
    const subscription = (await this.subscriptions.find(owner, id)) ?? notFound();
    if (subscription.status !== "active")
      throw new WebhookInactiveException(subscription.status, subscription.statusReason);
    const redelivered = await this.subscriptions.redeliver(owner, id, deliveryId);
    if (redelivered === null) throw new WebhookNotFoundException("delivery");
    return redelivered.delivery;
  }
}

function notFound(): never {
  throw new WebhookNotFoundException();
}

function ownerOf(member: Member): WebhookOwner {
  return { userId: member.userId, clientId: member.clientId };
}

/** What the caller's token rests on, checked again before every notice. */
function credentialOf(member: Member): { credential: WebhookCredential; grantHash: string | null } {
  if (member.grantHash !== undefined) return { credential: "grant", grantHash: member.grantHash };
  return { credential: member.scopes === null ? "token" : "issuer", grantHash: null };
}
