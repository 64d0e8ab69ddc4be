/**
 * Follows a relay-run turn inside one tool call: forwards progress, turns
 * pending Codex requests into input rounds, and returns when the turn ends,
 * the wait ends, or the call's round budget is spent. `codex_run` follows the
 * turn it started; `codex_wait_reply` follows one the relay runs (or ran).
 * @module
 */

import type { InputRequiredResult } from "@modelcontextprotocol/server";
import { heldSession } from "../connect/connection.ts";
import type { ElicitationRouter } from "../elicit/router.ts";
import { readReply } from "../ops/read_reply.ts";
import type { ReadReplyResult, RequestSummary, WaitMessageResult } from "../reply/schemas.ts";
import { unavailableRead } from "../reply/read_result.ts";
import { endedRead, runDeclined, type RunEnd } from "../turn/run_result.ts";
import type { FinishedRun } from "../turn/turn_registry.ts";
import type { RunSnapshot, TurnRuntime } from "../turn/turn_runtime.ts";
import { attachTurn } from "../turn/turn_attach.ts";
import {
  applyAnswers,
  askable,
  inputRound,
  MAX_ROUNDS_PER_CALL,
  roundBelongs,
  type RoundState,
} from "./input_rounds.ts";
import { type CallContext, ToolRefusal } from "./tool.ts";

/** How following ended. */
export type Followed = RunEnd | { kind: "input"; result: InputRequiredResult };

/** The round-independent part of the state. */
export type RoundBase = Omit<RoundState, "tokens" | "round" | "runtimeId">;

/**
 * Follows `runtime` for up to `base.waitSeconds`. `round` is the number of
 * input rounds this call has returned so far.
 */
export async function followTurn(
  runtime: TurnRuntime,
  ctx: CallContext,
  base: RoundBase,
  round: number,
): Promise<Followed> {
  const { clock, router, turns, signal } = ctx;
  const modes = ctx.clientModes();
  const until = clock.now() + base.waitSeconds * 1000;
  // A first call reports the run from its start; a retry only what is new.
  let sent = round === 0 ? 0 : runtime.progressSince(0).length;
  while (true) {
    const seen = runtime.version;
    for (const message of runtime.progressSince(sent)) await ctx.progress(message, ++sent);
    if (runtime.ended) {
      // Notes the runtime took while the last progress went out are not dropped.
      for (const message of runtime.progressSince(sent)) await ctx.progress(message, ++sent);
      return { kind: "settled", run: await turns.settled(runtime) };
    }
    if (runtime.lost) return running(runtime, router, true);
    const pending = askable(router, router.pendingFor(runtime), modes);
    if (pending.length > 0) {
      if (round >= MAX_ROUNDS_PER_CALL) return running(runtime, router);
      const state: RoundState = {
        ...base,
        runtimeId: runtime.id,
        tokens: pending.map((p) => p.token),
        round: round + 1,
      };
      const result = inputRound(router, pending, await ctx.mintRound(state));
      if (result) return { kind: "input", result };
      continue;
    }
    if (signal.aborted || clock.now() >= until) return running(runtime, router);
    if (runtime.version === seen) await runtime.waitForChange(seen, until, signal);
  }
}

function running(runtime: TurnRuntime, router: ElicitationRouter, lost = false): Followed {
  return {
    kind: "running",
    snapshot: runtime.snapshot(),
    pendingRequests: pendingSummaries(router, runtime),
    ...(lost ? { lost: true as const } : {}),
  };
}

/** The requests of `runtime` still waiting for an answer, as results report them. */
export function pendingSummaries(
  router: ElicitationRouter,
  runtime: TurnRuntime,
): RequestSummary[] {
  return router.pendingFor(runtime).map((p) => ({ method: p.method, summary: p.summary }));
}

/**
 * Takes the answers a retried call carries. `belongs` tells whether the
 * sealed state was minted for this tool and these arguments. A state of
 * another call, or one whose every token was answered already or expired (a
 * replay), is refused and nothing reaches Codex.
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

/** The result fields of a followed wait (only those that say something). */
export function waitOutput(f: Extract<WaitFollowed, { kind: "read" }>): WaitMessageResult {
  return {
    ...f.read,
    timedOut: f.timedOut,
    ...(f.pendingRequests?.length ? { pendingRequests: f.pendingRequests } : {}),
    ...(f.declinedRequests ? { declinedRequests: f.declinedRequests } : {}),
    ...(f.notes?.length ? { notes: f.notes } : {}),
    ...(f.error ? { error: f.error } : {}),
  };
}

/**
 * What a wait reports of a run whose connection was lost while it followed it
 * (the daemon): `unavailable` (`connection_lost`), final; a later wait attaches again.
 */
export function lostWait(
  of: { threadId: string; clientMessageId: string },
  snapshot: RunSnapshot,
): Extract<WaitFollowed, { kind: "read" }> {
  return {
    kind: "read",
    read: unavailableRead(of, "connection_lost"),
    timedOut: false,
    ...(snapshot.notes.length ? { notes: snapshot.notes } : {}),
    ...declinedOf(snapshot),
  };
}

/** What a wait reports of a run that ended: final, with its replies (or known end) and story. */
export function settledWait(run: FinishedRun): Extract<WaitFollowed, { kind: "read" }> {
  const { snapshot } = run;
  return {
    kind: "read",
    read: endedRead(run),
    timedOut: false,
    ...(snapshot.notes.length ? { notes: snapshot.notes } : {}),
    ...declinedOf(snapshot),
    ...(snapshot.error && snapshot.phase === "failed" ? { error: snapshot.error } : {}),
  };
}

/** What `codex_wait_reply` returns when it followed a relay-run turn. */
export type WaitFollowed =
  | {
    kind: "read";
    read: ReadReplyResult;
    timedOut: boolean;
    pendingRequests?: RequestSummary[];
    declinedRequests?: RequestSummary[];
    /** The run's notes (an answer that counted as a decline). */
    notes?: string[];
    /** How the run failed, when it did. */
    error?: string;
  }
  | { kind: "input"; result: InputRequiredResult };

/**
 * `codex_wait_reply` on a message whose turn this relay runs (or just ran):
 * follows it instead of polling, forwards its input rounds, then reads its
 * replies on the runtime's own connection. Undefined when the relay has no
 * such turn (or ran it without reading replies).
 */
export async function followForWait(
  args: { threadId: string; clientMessageId: string; timeoutSeconds: number },
  ctx: CallContext,
): Promise<WaitFollowed | undefined> {
  const { turns, router } = ctx;
  const state = ctx.mcp.mcpReq.requestState<RoundState>();
  let round = 0;
  let runtime: TurnRuntime | undefined;
  if (state !== undefined) {
    takeAnswers(
      router,
      state,
      ctx.mcp.mcpReq.inputResponses,
      roundBelongs(state, { tool: "codex_wait_reply", ...scopeOf(args) }),
    );
    round = state.round;
    runtime = turns.byId(state.runtimeId);
  } else {
    const active = turns.active(args.threadId);
    if (active?.clientMessageId === args.clientMessageId) runtime = active;
  }
  if (!runtime) {
    const run = turns.finished(args.threadId, args.clientMessageId);
    if (run) return settledWait(run);
    runtime = await attachForWait(args, ctx);
    if (!runtime) return undefined;
  }
  const base: RoundBase = {
    v: 1,
    tool: "codex_wait_reply",
    threadId: args.threadId,
    clientMessageId: args.clientMessageId,
    waitSeconds: args.timeoutSeconds,
  };
  const followed = await followTurn(runtime, ctx, base, round);
  if (followed.kind === "input") return followed;
  if (followed.kind === "settled") return settledWait(followed.run);
  if (followed.lost) return lostWait(args, followed.snapshot);
  const budgetMs = ctx.connection.limits.rpcTimeoutMs;
  const session = heldSession(runtime.connection, ctx.signal, budgetMs, ctx.clock);
  return {
    kind: "read",
    read: await readReply(session, args),
    timedOut: true,
    ...(followed.pendingRequests.length > 0 ? { pendingRequests: followed.pendingRequests } : {}),
    ...declinedOf(followed.snapshot),
    notes: followed.snapshot.notes,
  };
}

/**
 * At the turn-start level, on a backend that attaches to running turns (the
 * daemon): a message whose turn runs there (read as `running`), started by codex_run of this relay or of an
 * earlier one, is followed by a runtime attached to it, so its pending
 * approvals are offered to this call. Otherwise undefined (the wait reads).
 */
export async function attachForWait(
  args: { threadId: string; clientMessageId: string },
  ctx: CallContext,
): Promise<TurnRuntime | undefined> {
  if (!ctx.connection.capabilities.shared || !ctx.caps.turnStart) return undefined;
  const scope = { threadId: args.threadId, clientMessageId: args.clientMessageId };
  const read = await ctx.connection
    .operation((s) => readReply(s, scope), { signal: ctx.signal, label: "attach" })
    .catch(() => undefined);
  if (read?.status !== "observed" || read.turn?.status !== "running") return undefined;
  const deps = { connection: ctx.connection, registry: ctx.turns, clock: ctx.clock, log: ctx.log };
  return await attachTurn(deps, { ...scope, turnId: read.turn.id }, ctx.signal);
}

/** The run's declined requests, as a followed wait carries them. */
export function declinedOf(snapshot: RunSnapshot): { declinedRequests?: RequestSummary[] } {
  return runDeclined(snapshot);
}

function scopeOf(args: { threadId: string; clientMessageId: string }) {
  return { threadId: args.threadId, clientMessageId: args.clientMessageId };
}
