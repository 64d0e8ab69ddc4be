/**
 * `codex_usage`: the account's rate-limit windows (`account/rateLimits/read`)
 * and, for a thread, its estimated cost (`account/usage/read {threadId}`).
 * Codex answers both only for a ChatGPT login; with an API key it answers
 * `-32600 "codex account authentication required …"` (transcripts 24, 26),
 * which is an honest `unavailable` (`account_required`), never an error.
 * @module
 */

import type { Session } from "../connect/connection.ts";
import { asRelayError, type ReasonCode } from "../core/errors.ts";
import type { LimitWindow } from "../codex/rate_limits.ts";
import type { CodexUsageResult } from "../reply/schemas.ts";
import { resolveThread } from "./resolve_thread.ts";
import { RelayError } from "../core/errors.ts";

/** What `unavailable` says for `account_required`. */
const NEEDS_ACCOUNT =
  "Codex gives this only with a ChatGPT login; it is logged in with an API key (or another provider)";

type Unavailable = { status: "unavailable"; reason: ReasonCode; message: string };

function unavailable(error: unknown): Unavailable {
  const e = asRelayError(error);
  const message = e.reason === "account_required" ? NEEDS_ACCOUNT : e.message;
  return { status: "unavailable", reason: e.reason, message };
}

/** A window as the result gives it: its reset as an ISO 8601 time. */
function shown(w: LimitWindow | null) {
  if (!w) return null;
  const resetsAt = w.resetsAt === null ? null : new Date(w.resetsAt * 1000).toISOString();
  return { usedPercent: w.usedPercent, windowMinutes: w.windowMinutes, resetsAt };
}

/**
 * Reads the limits and, with `threadRef`, the thread's estimated cost. Each
 * part that Codex refuses is `unavailable` with its reason.
 *
 * @example
 * ```ts ignore
 * const usage = await codexUsage(session); // {status: "unavailable", reason: "account_required", ...}
 * ```
 */
export async function codexUsage(s: Session, threadRef?: string): Promise<CodexUsageResult> {
  let out: CodexUsageResult;
  try {
    const limits = await s.call("account/rateLimits/read", {});
    out = {
      status: "available",
      primary: shown(limits.primary),
      secondary: shown(limits.secondary),
      planType: limits.planType,
    };
  } catch (error) {
    out = unavailable(error);
  }
  if (threadRef === undefined) return out;
  const threadId = await resolveThread(s, threadRef);
  if (threadId instanceof RelayError) {
    return { ...out, thread: { threadId: threadRef, ...unavailable(threadId) } };
  }
  try {
    const cost = await s.call("account/usage/read", { threadId });
    const thread = cost
      ? { threadId, status: "available" as const, ...cost }
      : { threadId, status: "available" as const, estimatedUsd: null, estimatedCredits: null };
    return { ...out, thread };
  } catch (error) {
    return { ...out, thread: { threadId, ...unavailable(error) } };
  }
}
