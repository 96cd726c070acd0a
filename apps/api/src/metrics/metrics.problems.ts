import { challengeHeader, METRICS_REALM, ProblemException, type ProblemType } from "../common/problems";

/** The metrics endpoint: its problem types. */
export const METRICS_PROBLEMS = {
  MetricsUnauthorized: {
    type: "unauthorized",
    status: 401,
    title: "Unauthorized",
    docs: "METRICS_TOKEN is set and the request does not carry it.",
    headers: challengeHeader({ const: METRICS_REALM }),
    example: { detail: "GET /metrics requires Authorization: Bearer <METRICS_TOKEN>", instance: "/metrics" },
  },
} as const satisfies Record<string, ProblemType>;

/** GET /metrics without the configured METRICS_TOKEN. */
export class MetricsUnauthorizedException extends ProblemException {
  constructor() {
    super(METRICS_PROBLEMS.MetricsUnauthorized, "GET /metrics requires Authorization: Bearer <METRICS_TOKEN>", {
      "WWW-Authenticate": METRICS_REALM,
    });
  }
}
