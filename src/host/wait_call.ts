/**
 * The MCP side of the wait engine (`turn/wait_engine.ts`) inside one tool
 * call: its progress becomes the call's progress notifications, the requests
 * of its followed runs become the call's input rounds (up to
 * {@linkcode MAX_ROUNDS_PER_CALL}), and a retried call's answers go back to
 * those requests first ({@linkcode takeAnswers}).
 * @module
 */

import type { InputRequiredResult } from "@modelcontextprotocol/server";
import { heldSession } from "../connect/connection.ts";
import type { ElicitationRouter } from "../elicit/router.ts";
import { readReply } from "../ops/read_reply.ts";
import { WAIT_MARGIN_MS } from "../ops/wait_reply.ts";
import type { WaitUntil } from "../reply/wait_set.ts";
import type { EntryEnd, RunEnd } from "../turn/run_result.ts";
import type { TurnRuntime } from "../turn/turn_runtime.ts";
import { type Progress, type WaitEntry, waitOn, type WaitPorts } from "../turn/wait_engine.ts";
import {
  applyAnswers,
  askable,
  inputRound,
  MAX_ROUNDS_PER_CALL,
  type RoundState,
} from "./input_rounds.ts";
import { type CallContext, ToolRefusal } from "./tool.ts";

/** The part of a round's state that does not change between rounds. */
export type RoundBase = Omit<RoundState, "tokens" | "round" | "runtimeId" | "runtimeIds">;

/** How a call waits: its rounds so far, what it stops at and what its progress says. */
export interface CallWait {
  /** The state every round of this call carries. */
  base: RoundBase;
  /** Rounds this call returned so far (0 on a first call). */
  round: number;
  until: WaitUntil;
  /** `detail` (one entry) or `summary` (several). */
  progress: "detail" | "summary";
}

/** The ends of the call's entries, or the input round it returns. */
export type CallWaited = { inputRequired: InputRequiredResult } | { ends: EntryEnd[] };

/**
 * Waits on `entries` for up to `base.waitSeconds` inside the call `ctx`.
 *
 * @example
 * ```ts
 * const out = await waitInCall([{ run: runtime }], ctx, { base, round: 0, until: "any", progress: "detail" });
 * ```
 */
export async function waitInCall(
  entries: WaitEntry<TurnRuntime>[],
  ctx: CallContext,
  call: CallWait,
): Promise<CallWaited> {
  const { router, clock } = ctx;
  let round = call.round;
  let offered: InputRequiredResult | undefined;
  const modes = ctx.clientModes();
  const ports: WaitPorts<TurnRuntime> = {
    operation: (fn) =>
      ctx.connection.operation(fn, {
        signal: ctx.signal,
        budgetMs: call.base.waitSeconds * 1000 + WAIT_MARGIN_MS,
        label: "wait",
      }),
    read: readReply,
    readFollowed: (run, ref) =>
      readReply(
        heldSession(run.connection, ctx.signal, ctx.connection.limits.rpcTimeoutMs, clock),
        ref,
      ),
    settled: (run) => ctx.turns.settled(run),
    pending: (run) => pendingSummaries(router, run),
    askable: (run) => askable(router, router.pendingFor(run), modes),
    report: (p) => ctx.progress(progressText(p), p.kind === "read" ? p.reads : p.n),
    ask: async (asked) => {
      if (round >= MAX_ROUNDS_PER_CALL) return "spent";
      const state: RoundState = {
        ...call.base,
        runtimeId: asked[0].runId,
        tokens: asked.map((a) => a.request.token),
        ...(call.base.messages ? { runtimeIds: asked.map((a) => a.runId) } : {}),
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
    timeoutMs: call.base.waitSeconds * 1000,
    until: call.until,
    progress: call.progress,
    fromStart: call.round === 0,
  }, ports);
  return out.kind === "offered" ? { inputRequired: offered! } : { ends: out.ends };
}

/** A followed run's end (an entry of a run is never a read). */
export function runEnd(end: EntryEnd): RunEnd {
  if (end.kind === "read") throw new Error("a run's entry ended as a read");
  return end;
}

/** The requests of `runtime` still waiting for an answer, as results report them. */
function pendingSummaries(router: ElicitationRouter, runtime: TurnRuntime) {
  return router.pendingFor(runtime).map((p) => ({ method: p.method, summary: p.summary }));
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
 * Takes the answers a retried call carries. `belongs` tells whether the
 * sealed state was minted for this tool and these arguments. A state of
 * another call, or one whose every token was answered already or expired (a
 * replay), is refused and nothing reaches Codex.
 *
 * @example
 * ```ts
 * takeAnswers(ctx.router, state, ctx.mcp.mcpReq.inputResponses, roundBelongs(state, call));
 * ```
 */
export function takeAnswers(
  router: ElicitationRouter,
  state: RoundState,
  responses: unknown,
  belongs: boolean,
): void {
  if (!belongs) {
    throw new ToolRefusal("This input round belongs to another call; nothing was sent to Codex");
  }
  const outcomes = applyAnswers(router, state, responses);
  if (
    outcomes.length > 0 && outcomes.every((o) => o === "unknown_token" || o === "wrong_runtime")
  ) {
    throw new ToolRefusal(
      "This input round was already answered or has expired; nothing was sent to Codex",
    );
  }
}
