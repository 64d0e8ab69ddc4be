/**
 * The MCP side of the wait engine (`turn/wait_engine.ts`) inside one tool
 * call: its progress becomes the call's progress notifications, the requests
 * of its followed runs become the call's input rounds (up to
 * {@linkcode MAX_ROUNDS_PER_CALL}), and a retried call's answers go back to
 * those requests first ({@linkcode retriedRound}).
 * @module
 */

import type { InputRequiredResult } from "@modelcontextprotocol/server";
import { heldSession } from "../connect/connection.ts";
import { WAIT_MARGIN_MS } from "../turn/wait_pacing.ts";
import type { WaitUntil } from "../reply/wait_set.ts";
import type { EntryEnd } from "../turn/run_result.ts";
import type { TurnRuntime } from "../turn/turn_runtime.ts";
import { type Progress, type WaitEntry, waitOn, type WaitPorts } from "../turn/wait_engine.ts";
import {
  applyAnswers,
  askable,
  inputRound,
  MAX_ROUNDS_PER_CALL,
  roundBelongs,
  type RoundCall,
  type RoundState,
} from "./input_rounds.ts";
import { type CallContext, ToolRefusal } from "./tool.ts";

/** What every round of a call carries: its tool and arguments, and a run's receipt. */
export type RoundBase = Omit<RoundState, "tokens" | "round" | "runIds">;

/**
 * Waits on `entries` for up to `base.waitSeconds` inside the call `ctx`, the
 * rounds of `prior` (a retried call's state) counted; the progress tells one
 * entry in detail and several (`base.messages`) by their count. Returns the
 * input round it offers, or each entry's end.
 *
 * @example
 * ```ts ignore
 * const out = await waitInCall([{ run: runtime }], ctx, base, undefined, "any");
 * ```
 */
export async function waitInCall(
  entries: WaitEntry<TurnRuntime>[],
  ctx: CallContext,
  base: RoundBase,
  prior: RoundState | undefined,
  until: WaitUntil,
): Promise<{ inputRequired: InputRequiredResult } | { ends: EntryEnd[] }> {
  const { router, clock } = ctx;
  let round = prior?.round ?? 0;
  let offered: InputRequiredResult | undefined;
  const modes = ctx.clientModes();
  const ports: WaitPorts<TurnRuntime> = {
    operation: (fn) =>
      ctx.connection.operation(fn, {
        signal: ctx.signal,
        budgetMs: base.waitSeconds * 1000 + WAIT_MARGIN_MS,
        label: "wait",
      }),
    read: (session, ref) => ctx.turns.readMessage(session, ref),
    readFollowed: (run, ref) =>
      ctx.turns.readMessage(
        heldSession(run.connection, ctx.signal, ctx.connection.limits.rpcTimeoutMs, clock),
        ref,
      ),
    settled: (run) => run.run.settled,
    pending: (run) => router.pendingFor(run).map((p) => ({ method: p.method, summary: p.summary })),
    askable: (run) => askable(router, router.pendingFor(run), modes),
    report: (p) => ctx.progress(progressText(p), p.kind === "read" ? p.reads : p.n),
    ask: async (asked) => {
      if (round >= MAX_ROUNDS_PER_CALL) return "spent";
      const state: RoundState = {
        ...base,
        tokens: asked.map((a) => a.request.token),
        runIds: asked.map((a) => a.runId),
        round: round + 1,
      };
      const requests = asked.map((a) => a.request);
      offered = inputRound(router, requests, await ctx.mintRound(state));
      if (!offered) return "none";
      round++;
      return "offered";
    },
  };
  const out = await waitOn(entries, {
    clock,
    signal: ctx.signal,
    log: ctx.log,
    timeoutMs: base.waitSeconds * 1000,
    until,
    progress: base.messages ? "summary" : "detail",
    fromStart: round === 0,
  }, ports);
  return out.kind === "offered" ? { inputRequired: offered! } : { ends: out.ends };
}

/** The text of a progress notification. */
function progressText(p: Progress): string {
  if (p.kind !== "read") return p.text;
  const last = p.last;
  const saw = last.status === "observed" && last.turn
    ? `matched, turn ${last.turn.status}`
    : last.status === "no_match"
    ? "message not found yet"
    : last.status;
  return `Waiting for a final answer: read ${p.reads}, ${saw}, ${
    Math.round(p.elapsedMs / 1000)
  } of ${p.timeoutMs / 1000} s`;
}

/**
 * The state of a retried round, its answers taken (undefined on a first
 * call). A state minted for another call (`roundBelongs`), or one whose every
 * token was answered already or expired (a replay), is refused and nothing
 * reaches Codex.
 *
 * @example
 * ```ts ignore
 * const prior = retriedRound(ctx, { tool: "codex_run", threadRef: args.threadId });
 * ```
 */
export function retriedRound(ctx: CallContext, call: RoundCall): RoundState | undefined {
  const state = ctx.mcp.mcpReq.requestState<RoundState>();
  if (state === undefined) return undefined;
  if (!roundBelongs(state, call)) {
    throw new ToolRefusal("This input round belongs to another call; nothing was sent to Codex");
  }
  const outcomes = applyAnswers(ctx.router, state, ctx.mcp.mcpReq.inputResponses);
  if (
    outcomes.length > 0 && outcomes.every((o) => o === "unknown_token" || o === "wrong_runtime")
  ) {
    throw new ToolRefusal(
      "This input round was already answered or has expired; nothing was sent to Codex",
    );
  }
  return state;
}
