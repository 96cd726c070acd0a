import { METRICS_REALM, ProblemException } from "../common/problems";

/** GET /metrics without the configured METRICS_TOKEN. */
export class MetricsUnauthorizedException extends ProblemException {
  constructor() {
    super("MetricsUnauthorized", "GET /metrics requires Authorization: Bearer <METRICS_TOKEN>", {
      "WWW-Authenticate": METRICS_REALM,
    });
  }
}
