import { Controller, Get, Res, UseGuards } from "@nestjs/common";
import { SkipThrottle } from "@nestjs/throttler";
import type { Response } from "express";
import { MetricsService } from "./metrics.service";
import { MetricsTokenGuard } from "./metrics-token.guard";

@Controller("metrics")
@SkipThrottle()
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  /** Prometheus text exposition format. */
  @Get()
  @UseGuards(MetricsTokenGuard)
  async scrape(@Res() response: Response): Promise<void> {
    const body = await this.metrics.registry.metrics();
    // end(), not send(): Express would rewrite the exposition format's exact content type.
    response.status(200).setHeader("Content-Type", this.metrics.registry.contentType);
    response.end(body);
  }
}
