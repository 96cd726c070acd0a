import { Module } from "@nestjs/common";
import { AuthModule } from "../auth/auth.module";
import { MetricsModule } from "../metrics/metrics.module";
import { WebhookDeliveryWorker } from "./webhook-delivery.worker";
import { WebhookSubscriptionsRepository } from "./webhook-subscriptions.repository";
import { WebhooksController } from "./webhooks.controller";
import { WebhooksService } from "./webhooks.service";

/**
 * Webhooks (contract 10.2): the subscriptions' routes (WebhooksController), their use cases
 * (WebhooksService) and storage (WebhookSubscriptionsRepository, Prisma), and the delivery worker
 * that sends the notices the database makes due (WebhookDeliveryWorker, graphile-worker).
 */
@Module({
  imports: [AuthModule, MetricsModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookSubscriptionsRepository, WebhookDeliveryWorker],
})
export class WebhooksModule {}
