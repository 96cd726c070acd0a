import { AUTH_PROBLEMS } from "../auth/auth.problems";
import { CALENDAR_FEED_PROBLEMS } from "../calendar-feeds/calendar-feeds.problems";
import { COMMON_PROBLEMS } from "../common/problems";
import { HEALTH_PROBLEMS } from "../health/health.problems";
import { METRICS_PROBLEMS } from "../metrics/metrics.problems";
import { OAUTH_PROBLEMS } from "../oauth/oauth.problems";
import { RATE_LIMIT_PROBLEMS } from "../rate-limit/rate-limit.problems";
import { SECURITY_PROBLEMS } from "../security/security.problems";
import { TEAM_LIST_PROBLEMS } from "../team-lists/team-lists.problems";
import { WEBHOOK_PROBLEMS } from "../webhooks/webhooks.problems";

/**
 * Every problem type the api answers with (contract section 7), gathered from where each is
 * declared, for the document's error responses.
 */
export const PROBLEM_CATALOGUE = {
  ...COMMON_PROBLEMS,
  ...AUTH_PROBLEMS,
  ...CALENDAR_FEED_PROBLEMS,
  ...HEALTH_PROBLEMS,
  ...METRICS_PROBLEMS,
  ...OAUTH_PROBLEMS,
  ...RATE_LIMIT_PROBLEMS,
  ...SECURITY_PROBLEMS,
  ...TEAM_LIST_PROBLEMS,
  ...WEBHOOK_PROBLEMS,
};

export type ProblemName = keyof typeof PROBLEM_CATALOGUE;
