/**
 * User-input rounds of a tool call (SDK v2 `inputRequired`): pending Codex
 * requests become input requests keyed by their tokens, sealed in a
 * `requestState`; the client's retry carries the answers, which go back
 * through the router to the exact pending requests.
 * @module
 */

import {
  inputRequired,
  type InputRequiredResult,
  inputResponse,
} from "@modelcontextprotocol/server";
import type { AnswerOutcome, ElicitationRouter, Pending } from "../elicit/router.ts";
import type { Receipt } from "../reply/schemas.ts";
import { canonicalRef, isUuid } from "../reply/inputs.ts";
import type { WaitMessageRef } from "../reply/wait_set.ts";

/** Rounds one tool call may return before it hands over (clients stop after 10). */
export const MAX_ROUNDS_PER_CALL = 9;

/** What a round's sealed state carries (signed, not encrypted: no secrets). */
export interface RoundState {
  v: 1;
  /** The tool whose call this round belongs to. */
  tool: "codex_run" | "codex_review" | "codex_compact" | "codex_wait_reply";
  threadId: string;
  clientMessageId: string;
  /** The tokens asked in this round. */
  tokens: string[];
  /** Rounds returned so far in this call, this one included. */
  round: number;
  waitSeconds: number;
  /** codex_run's receipt, carried to its final result. */
  receipt?: Receipt;
  /** A wait on several messages: the list (resolved ids), in the order given. */
  messages?: WaitMessageRef[];
  /** The run each token belongs to (its id; same order as `tokens`). */
  runIds: string[];
}

/** What the client can be asked. */
export interface ClientModes {
  form: boolean;
  url: boolean;
}

/**
 * Splits pending requests into those the client can answer and declines the
 * rest (the router answers Codex itself). Returns the askable ones.
 */
export function askable(
  router: ElicitationRouter,
  pending: Pending[],
  modes: ClientModes,
): Pending[] {
  const ok: Pending[] = [];
  for (const p of pending) {
    const can = p.forward.kind === "form" ? modes.form : p.forward.kind === "url" && modes.url;
    if (can) ok.push(p);
    else router.decline(p.token, "the client does not support this kind of user input");
  }
  return ok;
}

/** Builds the `inputRequired` result for `pending` (already askable) and the sealed state. */
export function inputRound(
  router: ElicitationRouter,
  pending: Pending[],
  requestState: string,
): InputRequiredResult | undefined {
  const requests: Record<string, ReturnType<typeof inputRequired.elicit>> = {};
  for (const p of pending) {
    try {
      if (p.forward.kind === "form") {
        requests[p.token] = inputRequired.elicit({
          mode: "form",
          message: p.forward.message,
          // deno-lint-ignore no-explicit-any
          requestedSchema: p.forward.requestedSchema as any,
        });
      } else if (p.forward.kind === "url") {
        requests[p.token] = inputRequired.elicitUrl({
          message: p.forward.message,
          url: p.forward.url,
        });
      }
    } catch {
      router.decline(p.token, "the request cannot be expressed as an MCP elicitation");
    }
  }
  if (Object.keys(requests).length === 0) return undefined;
  return inputRequired({ inputRequests: requests, requestState });
}

/**
 * Applies the client's answers of a retried call to the tokens its state
 * names (each to its own runtime's request: a round may offer the requests
 * of several turns). A token without an answer is
 * declined. Resolves with each outcome.
 */
export function applyAnswers(
  router: ElicitationRouter,
  state: Pick<RoundState, "tokens" | "runIds">,
  responses: unknown,
): AnswerOutcome[] {
  const outcomes: AnswerOutcome[] = [];
  for (const [i, token] of state.tokens.entries()) {
    const runId = state.runIds[i];
    // deno-lint-ignore no-explicit-any
    const view = inputResponse(responses as any, token) as {
      kind: string;
      action?: "accept" | "decline" | "cancel";
      content?: Record<string, unknown>;
    };
    if (view.kind === "elicit" && view.action) {
      outcomes.push(
        router.answer(token, runId, { action: view.action, content: view.content }),
      );
    } else {
      const declined = router.decline(token, "the client's retry carried no answer");
      outcomes.push(declined ? "declined" : "unknown_token");
    }
  }
  return outcomes;
}

/** The call a retried round's state must belong to. */
export type RoundCall =
  /** A run (`codex_run`, `codex_review`), with the `threadId` it was given (a name cannot be compared without a lookup). */
  | { tool: "codex_run" | "codex_review" | "codex_compact"; threadRef?: string }
  /** `codex_wait_reply` on one message, or on several (`messages`); resolved ids, in the order given. */
  | { tool: "codex_wait_reply" } & Pick<RoundState, "threadId" | "clientMessageId" | "messages">;

/**
 * Whether a sealed round state was minted for this call: the same tool and
 * the same arguments (its thread, its message, or its list of messages in
 * order). The one check every tool that offers input rounds makes.
 *
 * @example
 * ```ts ignore
 * roundBelongs(state, { tool: "codex_wait_reply", threadId: "t", clientMessageId: "m" });
 * ```
 */
export function roundBelongs(state: RoundState, call: RoundCall): boolean {
  if (state.tool !== call.tool) return false;
  if (call.tool !== "codex_wait_reply") {
    const ref = call.threadRef;
    return state.receipt !== undefined &&
      (ref === undefined || !isUuid(ref) || canonicalRef(ref) === state.threadId);
  }
  const same = (a: WaitMessageRef, b: WaitMessageRef) =>
    a.threadId === b.threadId && a.clientMessageId === b.clientMessageId;
  const listed = state.messages;
  const asked = call.messages;
  if (listed === undefined || asked === undefined) return listed === asked && same(state, call);
  return listed.length === asked.length && listed.every((m, i) => same(m, asked[i]));
}
