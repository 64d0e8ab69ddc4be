/**
 * Failure classes from a turn's own state and `codexErrorInfo`; error text
 * only for the one failure Codex gives no kind: a model provider's key
 * variable missing where Codex runs (`missing_provider_key`).
 * @module
 */

import type { FailureClass } from "../reply/schemas.ts";

/** A classified failure. `retryAfterMs` never appears with `retryable: false`. */
export interface Failure {
  failureClass: FailureClass;
  retryable: boolean;
  retryAfterMs?: number;
  /** What fixes it, when the relay knows (`missing_provider_key`). */
  fix?: string;
}

/**
 * Codex's error when a model provider's `env_key` variable is not set where
 * it runs (Codex 0.169 and 0.171: `Missing environment variable: \`NAME\`.`;
 * its `codexErrorInfo` is `other` or none, so the text is the only sign).
 */
const MISSING_KEY = /^Missing environment variable: [`'"]?([A-Za-z_][A-Za-z0-9_]{0,127})[`'"]?/;

/** The fix of a provider key missing where Codex runs: the variable reaches Codex through the entry. */
export function missingKeyFix(name: string): string {
  return `set ${name} where Codex runs: in the environment the MCP client starts codex-relay with (Codex: "${name}" in env_vars of codex-relay's [mcp_servers] entry; Cursor, VS Code: "${name}": "\${env:${name}}" in its "env", both written by codex-relay install; Claude Desktop: the key's value in its "env", by hand; Claude Code: set it where claude starts), then restart the client`;
}

/** How long a capacity failure should wait before a retry. */
export const CAPACITY_RETRY_AFTER_MS = 60_000;

/**
 * Every `codexErrorInfo` kind the relay classifies: string kinds, and the keys
 * of object kinds. The drift check (tests/e2e/drift_test.ts) fails when a
 * Codex release has a kind missing here. `http` kinds are classified by their
 * `httpStatusCode`; `other` is Codex's own catch-all.
 */
export const ERROR_KIND_CLASSES: Readonly<Record<string, FailureClass | "http">> = Object.freeze({
  serverOverloaded: "capacity",
  rateLimitExceeded: "capacity",
  usageLimitExceeded: "capacity",
  flexUnavailable: "capacity",
  policyCapacityUnavailable: "capacity",
  unauthorized: "auth",
  badRequest: "bad_request",
  contextWindowExceeded: "bad_request",
  sessionBudgetExceeded: "bad_request",
  modelNotFound: "bad_request",
  cyberPolicy: "bad_request",
  // Codex 0.171: refused under the biology policy; a retry would be refused again.
  bioPolicy: "bad_request",
  misalignmentPolicyViolation: "bad_request",
  tooManyDenials: "bad_request",
  inferenceHookDenied: "bad_request",
  activeTurnNotSteerable: "bad_request",
  internalServerError: "internal",
  threadRollbackFailed: "internal",
  sandboxError: "internal",
  other: "unknown",
  httpConnectionFailed: "http",
  responseStreamConnectionFailed: "http",
  responseStreamDisconnected: "http",
  responseTooManyFailedAttempts: "http",
});

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

/**
 * Classifies a failed turn by its `error.codexErrorInfo`, and by `message`
 * only when the kind says nothing (`other` or none) and Codex's message is
 * the missing provider key.
 */
export function classifyFailure(codexErrorInfo: unknown, message?: string): Failure {
  const failure = classifyKind(codexErrorInfo);
  const missing = failure.failureClass === "unknown" ? message?.match(MISSING_KEY) : null;
  if (!missing) return failure;
  return { failureClass: "missing_provider_key", retryable: false, fix: missingKeyFix(missing[1]) };
}

function classifyKind(codexErrorInfo: unknown): Failure {
  if (typeof codexErrorInfo === "string") return ofClass(kindClass(codexErrorInfo));
  if (typeof codexErrorInfo === "object" && codexErrorInfo !== null) {
    const info = codexErrorInfo as Record<string, unknown>;
    for (const [kind, detail] of Object.entries(info)) {
      const cls = kindClass(kind);
      if (cls === undefined) continue;
      if (cls !== "http") return ofClass(cls);
      if (detail && typeof detail === "object") {
        return fromStatus((detail as Record<string, unknown>).httpStatusCode) ??
          { failureClass: "unknown", retryable: false };
      }
    }
  }
  return { failureClass: "unknown", retryable: false };
}

function kindClass(kind: string): FailureClass | "http" | undefined {
  return Object.hasOwn(ERROR_KIND_CLASSES, kind) ? ERROR_KIND_CLASSES[kind] : undefined;
}

function ofClass(cls: FailureClass | "http" | undefined): Failure {
  if (cls === "capacity") return capacity();
  if (cls === undefined || cls === "http") return { failureClass: "unknown", retryable: false };
  return { failureClass: cls, retryable: false };
}

/**
 * A spent usage limit (`codexErrorInfo` `usageLimitExceeded`) waits for the
 * window's reset: `retryAfterMs` is `resetMs` when known (from the last
 * `account/rateLimits/updated`, `limitRetryAfterMs`); other failures pass.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const failure = withLimitReset(classifyFailure("usageLimitExceeded"), "usageLimitExceeded", 3_600_000);
 * assert.equal(failure.retryAfterMs, 3_600_000);
 * ```
 */
export function withLimitReset(
  failure: Failure,
  codexErrorInfo: unknown,
  resetMs: number | undefined,
): Failure {
  const kinds = typeof codexErrorInfo === "string"
    ? [codexErrorInfo]
    : typeof codexErrorInfo === "object" && codexErrorInfo !== null
    ? Object.keys(codexErrorInfo)
    : [];
  if (resetMs === undefined || !failure.retryable || !kinds.includes("usageLimitExceeded")) {
    return failure;
  }
  return { ...failure, retryAfterMs: resetMs };
}

/** A turn the watchdog interrupted: retryable only if it produced nothing. */
export function stalledFailure(producedItems: boolean): Failure {
  return { failureClass: "stalled", retryable: !producedItems };
}
