/**
 * `codex_usage`: the account's rate-limit windows (`account/rateLimits/read`)
 * and, for a thread, its estimated cost (`account/usage/read {threadId}`).
 * Codex answers both only for a ChatGPT login; with an API key it answers
 * `-32600 "codex account authentication required …"` (transcripts 24, 26),
 * which is an honest `unavailable` (`account_required`), never an error. It
 * says the same without any login or with an unreadable `auth.json`
 * (captures 46): then `account/read` tells, as `codex_run` reads it
 * (`loginState`), and the part is `not_logged_in`, as `codex_run` answers.
 * @module
 */

import type { Session } from "../connect/connection.ts";
import { asRelayError, type ReasonCode } from "../core/errors.ts";
import type { LimitWindow } from "../codex/rate_limits.ts";
import type { CodexUsageResult } from "../reply/schemas.ts";
import { resolveThread } from "./resolve_thread.ts";
import { RelayError } from "../core/errors.ts";
import { LOGIN_FIX, loginState } from "../codex/account.ts";
import { grantedEnv } from "../core/granted_env.ts";

/** What `unavailable` says for `account_required`. */
const NEEDS_ACCOUNT = "Codex gives this only with a ChatGPT login";

type Unavailable = { status: "unavailable"; reason: ReasonCode; message: string };
type Env = (name: string) => string | undefined;

/**
 * Why Codex refused an account's part (`account_required`): how it is
 * logged in, asked of `account/read` as a run's start asks it; no login at
 * all is `not_logged_in`.
 */
async function whyNoAccount(s: Session, env: Env): Promise<Unavailable> {
  let how: string;
  try {
    const state = loginState(await s.call("account/read", {}), env);
    if (state.kind === "not_logged_in") {
      const message = `Codex is not logged in and no API key variable is set. To fix: ${LOGIN_FIX}`;
      return { status: "unavailable", reason: "not_logged_in", message };
    }
    how = state.kind === "logged_in"
      ? state.how === "apiKey"
        ? "it is logged in with an API key"
        : `it is logged in (${state.how})`
      : state.kind === "key_variable"
      ? `it uses the API key variable ${state.name}`
      : "its model provider needs no OpenAI login";
  } catch (error) {
    if (asRelayError(error).rpcCode === undefined) throw error;
    how = "Codex did not say how it is logged in";
  }
  return { status: "unavailable", reason: "account_required", message: `${NEEDS_ACCOUNT}; ${how}` };
}

async function unavailable(s: Session, env: Env, error: unknown): Promise<Unavailable> {
  const e = asRelayError(error);
  if (e.reason === "account_required") return await whyNoAccount(s, env);
  return { status: "unavailable", reason: e.reason, message: e.message };
}

/** A window as the result gives it: its reset as an ISO 8601 time. */
function shown(w: LimitWindow | null) {
  if (!w) return null;
  const resetsAt = w.resetsAt === null ? null : new Date(w.resetsAt * 1000).toISOString();
  return { usedPercent: w.usedPercent, windowMinutes: w.windowMinutes, resetsAt };
}

/**
 * Reads the limits and, with `threadRef`, the thread's estimated cost. Each
 * part that Codex refuses is `unavailable` with its reason; `env` (the
 * relay's granted variables) tells a key variable Codex would use.
 *
 * @example
 * ```ts ignore
 * const usage = await codexUsage(session); // {status: "unavailable", reason: "account_required", ...}
 * ```
 */
export async function codexUsage(
  s: Session,
  threadRef?: string,
  env: Env = grantedEnv,
): Promise<CodexUsageResult> {
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
    out = await unavailable(s, env, error);
  }
  if (threadRef === undefined) return out;
  const threadId = await resolveThread(s, threadRef);
  if (threadId instanceof RelayError) {
    return { ...out, thread: { threadId: threadRef, ...await unavailable(s, env, threadId) } };
  }
  try {
    const cost = await s.call("account/usage/read", { threadId });
    const thread = cost
      ? { threadId, status: "available" as const, ...cost }
      : { threadId, status: "available" as const, estimatedUsd: null, estimatedCredits: null };
    return { ...out, thread };
  } catch (error) {
    return { ...out, thread: { threadId, ...await unavailable(s, env, error) } };
  }
}
