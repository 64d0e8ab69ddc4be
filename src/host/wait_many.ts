/**
 * `codex_wait_reply {messages, until}`: one wait on 1..16 messages. A message
 * whose turn this relay runs is followed (its runtime wakes the wait, its
 * Codex requests go into the call's input rounds, each answer to its own
 * turn); the others are read as the single wait reads them, all in one
 * operation with one shared backoff and, on a watching session (the daemon),
 * one wake for all their threads. Returns at the first final message (`any`)
 * or the last (`all`), or when the wait time is up.
 * @module
 */

import type { InputRequiredResult } from "@modelcontextprotocol/server";
import { heldSession, type Session } from "../connect/connection.ts";
import { asRelayError, RelayError } from "../core/errors.ts";
import type { Pending } from "../elicit/router.ts";
import { readReply } from "../ops/read_reply.ts";
import { resolveRef } from "../ops/resolve_thread.ts";
import {
  isSettled,
  notFoundSince,
  Pacing,
  pause,
  WAIT_MARGIN_MS,
  Wake,
  WAKING,
} from "../ops/wait_reply.ts";
import { unavailableRead } from "../reply/read_result.ts";
import type { ReadReplyResult, WaitMessageResult } from "../reply/schemas.ts";
import {
  duplicateAt,
  mergeResults,
  summaryText,
  untilReached,
  type WaitMessageRef,
  type WaitSetResult,
  type WaitUntil,
} from "../reply/wait_set.ts";
import type { TurnRuntime } from "../turn/turn_runtime.ts";
import {
  attachForWait,
  declinedOf,
  lostWait,
  pendingSummaries,
  settledWait,
  takeAnswers,
  waitOutput,
} from "./follow_turn.ts";
import {
  askable,
  inputRound,
  MAX_ROUNDS_PER_CALL,
  roundBelongs,
  type RoundState,
} from "./input_rounds.ts";
import { type CallContext, ToolRefusal } from "./tool.ts";

/** What a wait on several messages is asked. */
export interface WaitManyInput {
  /** The messages, in the order the result lists them. */
  messages: WaitMessageRef[];
  /** Return at the first final message or the last. */
  until: WaitUntil;
  /** How long to wait, in seconds. */
  timeoutSeconds: number;
}

/** What a wait on several messages returns. */
export type WaitManyOutcome = WaitSetResult<WaitMessageResult> | {
  inputRequired: InputRequiredResult;
};

/** One message of the wait. */
interface Entry {
  threadId: string;
  clientMessageId: string;
  /** Its result once final. */
  result?: WaitMessageResult;
  /** The turn this relay runs for it (followed, not read). */
  runtime?: TurnRuntime;
  /** The last read (messages that are read). */
  last?: ReadReplyResult;
  /** Since when its reads have said `not_found` in a row (clock ms). */
  missingSince?: number;
}

/** Where a call is: its rounds, its progress text, its reads' pacing. */
interface Pass {
  round: number;
  deadline: number;
  sent: string;
  notices: number;
  nextReadAt: number;
  /** The reads' pacing (the single wait's). */
  pacing: Pacing;
  wake: Wake;
  /** `wake.count` at the last read: a poke since makes the next read due at once. */
  wakesAtRead: number;
  /** A notification of a read thread wakes the wait (a queued message may still start). */
  watched: boolean;
}

/** Runs the wait; an `inputRequired` round when a followed turn asks the user something. */
export async function waitMany(input: WaitManyInput, ctx: CallContext): Promise<WaitManyOutcome> {
  const entries = await resolveAll(input.messages, ctx);
  // The same message named twice (an id in another case, or by name): refused as a literal repeat.
  const dup = duplicateAt(entries.map(refOf));
  if (dup >= 0) throw new ToolRefusal(`messages[${dup}] repeats an earlier message`);
  const state = ctx.mcp.mcpReq.requestState<RoundState>();
  let round = 0;
  if (state !== undefined) {
    const belongs = roundBelongs(state, { tool: "codex_wait_reply", messages: entries.map(refOf) });
    takeAnswers(ctx.router, state, ctx.mcp.mcpReq.inputResponses, belongs);
    round = state.round;
  }
  for (const entry of entries) await locate(entry, ctx);
  const loop = (session?: Session) => follow(entries, input, ctx, round, session);
  if (!entries.some(isRead)) return await loop();
  try {
    return await waitOperation(ctx, input.timeoutSeconds, loop);
  } catch (error) {
    const { reason } = asRelayError(error);
    ctx.log.warn("wait failed", { reason });
    for (const e of entries.filter(isRead)) {
      e.result = { ...unavailableRead(e, reason), timedOut: false };
    }
    return await finish(entries, input, ctx);
  }
}

/**
 * Runs `fn` as one operation of `codex_wait_reply` (either form): on the
 * call's signal, within the wait's own time plus {@linkcode WAIT_MARGIN_MS}.
 */
export function waitOperation<T>(
  ctx: CallContext,
  timeoutSeconds: number,
  fn: (session: Session) => Promise<T>,
): Promise<T> {
  const budgetMs = timeoutSeconds * 1000 + WAIT_MARGIN_MS;
  return ctx.connection.operation(fn, { signal: ctx.signal, budgetMs, label: "wait" });
}

async function resolveAll(messages: WaitMessageRef[], ctx: CallContext): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (const m of messages) {
    const threadId = await resolveRef(ctx.connection, m.threadId, ctx.signal);
    const entry: Entry = {
      threadId: threadId instanceof RelayError ? m.threadId : threadId,
      clientMessageId: m.clientMessageId,
    };
    if (threadId instanceof RelayError) {
      entry.result = { ...unavailableRead(entry, threadId.reason), timedOut: false };
    }
    entries.push(entry);
  }
  return entries;
}

/** Finds the turn this relay runs (or ran, or, on the daemon, can attach to) for `e`. */
async function locate(e: Entry, ctx: CallContext): Promise<void> {
  if (e.result) return;
  const active = ctx.turns.active(e.threadId);
  if (active?.clientMessageId === e.clientMessageId) {
    e.runtime = active;
    return;
  }
  const run = ctx.turns.finished(e.threadId, e.clientMessageId);
  if (run) {
    e.result = waitOutput(settledWait(run));
    return;
  }
  e.runtime = await attachForWait(refOf(e), ctx);
}

async function follow(
  entries: Entry[],
  input: WaitManyInput,
  ctx: CallContext,
  round: number,
  session?: Session,
): Promise<WaitManyOutcome> {
  const { clock } = ctx;
  const signal = session?.signal ?? ctx.signal;
  const wake = new Wake();
  const unwatch = entries.filter(isRead).map((e) =>
    session?.watch?.(e.threadId, (method) => {
      if (WAKING.has(method)) wake.poke();
    })
  );
  const pass: Pass = {
    round,
    deadline: clock.now() + input.timeoutSeconds * 1000,
    sent: "",
    notices: 0,
    nextReadAt: clock.now(),
    pacing: new Pacing(unwatch.some((u) => u !== undefined)),
    watched: unwatch.some((u) => u !== undefined),
    wake,
    wakesAtRead: 0,
  };
  try {
    while (true) {
      const seen = entries.map((e) => e.runtime?.version ?? 0);
      const wakes = wake.count;
      await settleFollowed(entries, ctx);
      const pending = pendingOf(entries, ctx);
      await readDue(entries, pass, ctx, session);
      await notify(entries, pending, pass, ctx);
      if (pending.length > 0) {
        if (pass.round >= MAX_ROUNDS_PER_CALL) break;
        const offered = await offer(entries, pending, input, pass.round, ctx);
        if (offered) return { inputRequired: offered };
        continue;
      }
      const done = entries.filter((e) => e.result).length;
      if (untilReached(input.until, done, entries.length)) break;
      if (signal.aborted || clock.now() >= pass.deadline) break;
      if (wake.count === wakes) await sleep(entries, seen, pass, ctx, signal);
    }
  } finally {
    for (const u of unwatch) u?.();
  }
  return await finish(entries, input, ctx);
}

/** Followed turns that ended: their run's replies (or, without them, read like the rest). */
async function settleFollowed(entries: Entry[], ctx: CallContext): Promise<void> {
  for (const e of entries) {
    const runtime = e.runtime;
    if (!runtime || e.result) continue;
    if (runtime.lost) {
      e.result = waitOutput(lostWait(e, runtime.snapshot()));
      e.runtime = undefined;
      continue;
    }
    if (!runtime.ended) continue;
    e.result = waitOutput(settledWait(await ctx.turns.settled(runtime)));
    e.runtime = undefined;
  }
}

/** The followed turns' requests the client can answer (the others are declined). */
function pendingOf(entries: Entry[], ctx: CallContext): { runtimeId: string; p: Pending }[] {
  const modes = ctx.clientModes();
  return entries.flatMap((e) => {
    if (!e.runtime || e.result) return [];
    const runtimeId = e.runtime.id;
    return askable(ctx.router, ctx.router.pendingFor(e.runtime), modes).map((p) => ({
      runtimeId,
      p,
    }));
  });
}

/** Reads every message that is read, when its shared pause is over or a wake came. */
async function readDue(
  entries: Entry[],
  pass: Pass,
  ctx: CallContext,
  session?: Session,
): Promise<void> {
  const due = entries.filter(isRead);
  if (due.length === 0) return;
  const now = ctx.clock.now();
  const woke = pass.wake.count !== pass.wakesAtRead;
  if (!woke && now < pass.nextReadAt && now < pass.deadline) return;
  pass.wakesAtRead = pass.wake.count;
  if (woke) pass.pacing.restart();
  const readAll = async (s: Session) => {
    for (const e of due) {
      e.last = await readReply(s, { threadId: e.threadId, clientMessageId: e.clientMessageId });
      const now = ctx.clock.now();
      e.missingSince = notFoundSince(e.last, e.missingSince, now);
      const missingFor = e.missingSince === undefined ? 0 : now - e.missingSince;
      if (isSettled(e.last, pass.watched, missingFor)) e.result = { ...e.last, timedOut: false };
    }
  };
  if (session) await readAll(session);
  else await ctx.connection.operation(readAll, { signal: ctx.signal, label: "wait" });
  pass.nextReadAt = ctx.clock.now() + pass.pacing.after(due.map((e) => e.last));
}

/** Sends the summary ("2 of 5 done; 1 waiting for approval") when it changed. */
async function notify(
  entries: Entry[],
  pending: { runtimeId: string }[],
  pass: Pass,
  ctx: CallContext,
): Promise<void> {
  const waiting = new Set(pending.map((p) => p.runtimeId)).size;
  const done = entries.filter((e) => e.result).length;
  const text = summaryText({ done, total: entries.length, waiting });
  if (text === pass.sent) return;
  pass.sent = text;
  await ctx.progress(text, ++pass.notices);
}

/** One input round with the requests of every followed turn, each token tied to its turn. */
async function offer(
  entries: Entry[],
  pending: { runtimeId: string; p: Pending }[],
  input: WaitManyInput,
  round: number,
  ctx: CallContext,
): Promise<InputRequiredResult | undefined> {
  const state: RoundState = {
    v: 1,
    tool: "codex_wait_reply",
    runtimeId: pending[0].runtimeId,
    threadId: entries[0].threadId,
    clientMessageId: entries[0].clientMessageId,
    waitSeconds: input.timeoutSeconds,
    messages: entries.map(refOf),
    tokens: pending.map((x) => x.p.token),
    runtimeIds: pending.map((x) => x.runtimeId),
    round: round + 1,
  };
  return inputRound(ctx.router, pending.map((x) => x.p), await ctx.mintRound(state));
}

/** Until a followed turn changes, the next read is due, a watched thread wakes, or the end. */
async function sleep(
  entries: Entry[],
  seen: number[],
  pass: Pass,
  ctx: CallContext,
  signal: AbortSignal,
): Promise<void> {
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  const reads = entries.some(isRead);
  const until = reads ? Math.min(pass.nextReadAt, pass.deadline) : pass.deadline;
  const waits: Promise<unknown>[] = entries.flatMap((e, i) =>
    e.runtime && !e.result ? [e.runtime.waitForChange(seen[i], until, both)] : []
  );
  const wake = reads ? pass.wake : new Wake();
  waits.push(pause(ctx.clock, Math.max(0, until - ctx.clock.now()), both, wake));
  try {
    await Promise.race(waits);
  } finally {
    stop.abort();
  }
}

/** The results in the order given: final ones as they are, the others as they stand now. */
async function finish(
  entries: Entry[],
  input: WaitManyInput,
  ctx: CallContext,
): Promise<WaitSetResult<WaitMessageResult>> {
  const results: WaitMessageResult[] = [];
  for (const e of entries) {
    if (e.result) results.push(e.result);
    else if (e.runtime) results.push(await standing(e, e.runtime, ctx));
    else results.push({ ...(e.last ?? unavailableRead(e, "timeout")), timedOut: true });
  }
  return mergeResults(input.until, results);
}

/** A followed turn still running: its replies so far and what it waits on. */
async function standing(
  e: Entry,
  runtime: TurnRuntime,
  ctx: CallContext,
): Promise<WaitMessageResult> {
  const budgetMs = ctx.connection.limits.rpcTimeoutMs;
  const snapshot = runtime.snapshot();
  const pending = pendingSummaries(ctx.router, runtime);
  let read: ReadReplyResult;
  try {
    read = await readReply(heldSession(runtime.connection, ctx.signal, budgetMs, ctx.clock), e);
  } catch (error) {
    read = unavailableRead(e, asRelayError(error).reason);
  }
  return waitOutput({
    kind: "read",
    read,
    timedOut: true,
    ...(pending.length > 0 ? { pendingRequests: pending } : {}),
    ...declinedOf(snapshot),
    notes: snapshot.notes,
  });
}

function isRead(e: Entry): boolean {
  return !e.result && !e.runtime;
}

function refOf(e: Entry): WaitMessageRef {
  return { threadId: e.threadId, clientMessageId: e.clientMessageId };
}
