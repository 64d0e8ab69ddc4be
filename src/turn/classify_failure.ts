/**
 * Failure classes from a turn's own state and `codexErrorInfo`, never from
 * error text.
 * @module
 */

/** Every failure class: why a turn did not complete. */
export const FAILURE_CLASSES = [
  "capacity",
  "stalled",
  "auth",
  "bad_request",
  "internal",
  "unknown",
] as const;

/** Why a turn did not complete. */
export type FailureClass = typeof FAILURE_CLASSES[number];

/** A classified failure. `retryAfterMs` never appears with `retryable: false`. */
export interface Failure {
  failureClass: FailureClass;
  retryable: boolean;
  retryAfterMs?: number;
}

/** How long a capacity failure should wait before a retry. */
export const CAPACITY_RETRY_AFTER_MS = 60_000;

const CAPACITY = new Set([
  "serverOverloaded",
  "rateLimitExceeded",
  "usageLimitExceeded",
  "flexUnavailable",
  "policyCapacityUnavailable",
]);
const AUTH = new Set(["unauthorized"]);
const BAD_REQUEST = new Set([
  "badRequest",
  "contextWindowExceeded",
  "sessionBudgetExceeded",
  "modelNotFound",
  "cyberPolicy",
  "misalignmentPolicyViolation",
  "tooManyDenials",
  "inferenceHookDenied",
]);
const INTERNAL = new Set(["internalServerError", "threadRollbackFailed", "sandboxError"]);
const HTTP_VARIANTS = [
  "httpConnectionFailed",
  "responseStreamConnectionFailed",
  "responseStreamDisconnected",
  "responseTooManyFailedAttempts",
];

function fromStatus(status: unknown): Failure | undefined {
  if (typeof status !== "number") return undefined;
  if (status === 429 || status === 503) return capacity();
  if (status === 401 || status === 403) return { failureClass: "auth", retryable: false };
  if (status >= 400 && status < 500) return { failureClass: "bad_request", retryable: false };
  if (status >= 500) return { failureClass: "internal", retryable: false };
  return undefined;
}

function capacity(): Failure {
  return { failureClass: "capacity", retryable: true, retryAfterMs: CAPACITY_RETRY_AFTER_MS };
}

/** Classifies a failed turn's `error.codexErrorInfo`. */
export function classifyFailure(codexErrorInfo: unknown): Failure {
  if (typeof codexErrorInfo === "string") {
    if (CAPACITY.has(codexErrorInfo)) return capacity();
    if (AUTH.has(codexErrorInfo)) return { failureClass: "auth", retryable: false };
    if (BAD_REQUEST.has(codexErrorInfo)) return { failureClass: "bad_request", retryable: false };
    if (INTERNAL.has(codexErrorInfo)) return { failureClass: "internal", retryable: false };
    return { failureClass: "unknown", retryable: false };
  }
  if (typeof codexErrorInfo === "object" && codexErrorInfo !== null) {
    const info = codexErrorInfo as Record<string, unknown>;
    for (const variant of HTTP_VARIANTS) {
      const detail = info[variant] as Record<string, unknown> | undefined;
      if (detail && typeof detail === "object") {
        return fromStatus(detail.httpStatusCode) ?? { failureClass: "unknown", retryable: false };
      }
    }
    if ("activeTurnNotSteerable" in info) return { failureClass: "bad_request", retryable: false };
  }
  return { failureClass: "unknown", retryable: false };
}

/** A turn the watchdog interrupted: retryable only if it produced nothing. */
export function stalledFailure(producedItems: boolean): Failure {
  return { failureClass: "stalled", retryable: !producedItems };
}
