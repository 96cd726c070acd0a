import { challengeHeader, METRICS_REALM, ProblemException, problemTypes } from "../common/problems";

/** The metrics endpoint: its problem types. */
export const METRICS_PROBLEMS = problemTypes({
  MetricsUnauthorized: {
    type: "unauthorized",
    status: 401,
    title: "Unauthorized",
    docs: "METRICS_TOKEN is set and the request does not carry it.",
    headers: challengeHeader({ const: METRICS_REALM }),
    example: { detail: "GET /metrics requires Authorization: Bearer <METRICS_TOKEN>", instance: "/metrics" },
  },
});

/** GET /metrics without the configured METRICS_TOKEN. */
export class MetricsUnauthorizedException extends ProblemException {
  constructor() {
    super(METRICS_PROBLEMS.MetricsUnauthorized, "GET /metrics requires Authorization: Bearer <METRICS_TOKEN>", {
      "WWW-Authenticate": METRICS_REALM,
    });
  }
}
