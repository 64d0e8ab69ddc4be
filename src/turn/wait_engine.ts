/**
 * The one engine that follows runs and waits for answers, for every tool
 * that waits (`codex_run`, `codex_review`, `codex_wait_reply` on one message
 * or on several). It takes entries (a run this relay follows, a message it
 * reads, or both: a message whose run it follows), a deadline, when to stop
 * (`any` or `all` final) and a pacing, and reports progress, the requests its
 * followed runs wait on and each entry's end. A followed run wakes it when it
 * changes; the read messages are read in one operation, paced together
 * ({@linkcode Pacing}) and, on a session that watches their threads (the
 * daemon), woken by their notifications. No MCP here: the caller turns the
 * requests into input rounds and the ends into results.
 * @module
 */

import type { Clock } from "../core/clock.ts";
import { abortReason, asRelayError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Session } from "../connect/connection.ts";
import type { Pending } from "../elicit/router.ts";
import type { ReadReplyInput } from "../ops/read_reply.ts";
import { isSettled, notFoundSince, Pacing, pause, Wake, WAKING } from "../ops/wait_reply.ts";
import { unavailableRead } from "../reply/read_result.ts";
import type { ReadReplyResult } from "../reply/schemas.ts";
import { summaryText, untilReached, type WaitUntil } from "../reply/wait_set.ts";
import type { FinishedRun } from "./run_book.ts";
import type { EntryEnd, PendingSummary } from "./run_result.ts";
import type { RunSnapshot } from "./runtime_types.ts";

/** What the engine reads of a run it follows (a `TurnRuntime`). */
export interface FollowedRun {
  readonly id: string;
  readonly version: number;
  readonly ended: boolean;
  /** Its daemon connection was lost while it ran. */
  readonly lost: boolean;
  snapshot(): RunSnapshot;
  progressSince(from: number): string[];
  waitForChange(seen: number, untilMs: number, signal: AbortSignal): Promise<void>;
}

/** One entry: a followed run (`run`), a read message (`ref`), or a message whose run is followed. */
export interface WaitEntry<R extends FollowedRun = FollowedRun> {
  /** The message; a followed one is read once more when the wait ends before its run. */
  ref?: ReadReplyInput;
  /** The run followed for it. */
  run?: R;
  /** Its end, when known before the wait starts (an ended run, a thread not found). */
  end?: EntryEnd;
}

/** A request of a followed run the client can be asked. */
export interface Asked {
  runId: string;
  request: Pending;
}

/** What the engine reports while it waits. */
export type Progress =
  /** A followed run's progress note (`n`: its index in the run's notes, from 1). */
  | { kind: "note"; text: string; n: number }
  /** A read that did not end the wait (never sent as text: it may carry replies). */
  | { kind: "read"; reads: number; elapsedMs: number; timeoutMs: number; last: ReadReplyResult }
  /** The count of a wait on several entries ("2 of 5 done; 1 waiting for approval"). */
  | { kind: "summary"; text: string; n: number };

/** How a wait runs. */
export interface WaitOptions {
  clock: Clock;
  /** The call's signal: aborting it ends the wait as it stands. */
  signal: AbortSignal;
  log: Logger;
  /** How long to wait, in ms from now. */
  timeoutMs: number;
  /** Stop at the first final entry or the last. */
  until: WaitUntil;
  /** `detail` (one entry): its run's notes and each read; `summary` (several): the count. */
  progress: "detail" | "summary";
  /** A followed run's notes are reported from its start (a first call) or only new ones (a retry). */
  fromStart: boolean;
  /** The pacing of the reads; default {@linkcode Pacing}'s. */
  pacing?: { initialMs: number; maxMs: number };
}

/** What the engine does through its caller (I/O, the router, input rounds). */
export interface WaitPorts<R extends FollowedRun = FollowedRun> {
  /** Runs `fn` as the wait's one operation (all its reads). */
  operation<T>(fn: (session: Session) => Promise<T>): Promise<T>;
  /** One read of a message. */
  read(session: Session, ref: ReadReplyInput): Promise<ReadReplyResult>;
  /** A followed message's read when the wait ends before its run, on the run's own connection. */
  readFollowed(run: R, ref: ReadReplyInput): Promise<ReadReplyResult>;
  /** A run that ended, with its replies (`TurnRegistry.settled`). */
  settled(run: R): Promise<FinishedRun>;
  /** Every request the run waits on, as results report them. */
  pending(run: R): PendingSummary[];
  /** Those the client can be asked (the caller declines the others). */
  askable(run: R): Pending[];
  /** Sends a progress report. */
  report(progress: Progress): Promise<void>;
  /**
   * Offers requests to the client: `offered` ends the wait (an input round);
   * `spent` (no round left) ends it as it stands; `none` (none could be
   * offered) goes on.
   */
  ask(asked: Asked[]): Promise<"offered" | "spent" | "none">;
}

/** How a wait ended: an input round offered, or every entry's end (final or as it stands). */
export type WaitOutcome = { kind: "offered" } | { kind: "done"; ends: EntryEnd[] };

interface Slot<R extends FollowedRun> extends WaitEntry<R> {
  /** The last read (read entries). */
  last?: ReadReplyResult;
  missingSince?: number;
  /** Notes of its run sent so far. */
  sent: number;
}

interface Pass {
  deadline: number;
  started: number;
  reads: number;
  nextReadAt: number;
  pacing: Pacing;
  wake: Wake;
  wakesAtRead: number;
  watched: boolean;
  summary: string;
  notices: number;
  /** The progress report of the last read, sent once the pause is armed. */
  report?: () => Promise<void>;
}

/**
 * Follows and reads `entries` until `until` is reached, the deadline, an
 * abort, or a request to offer. An entry is final (`timedOut` false in its
 * result) exactly when its end is: a run that ended, a lost run, a settled
 * read ({@linkcode isSettled}).
 *
 * @example
 * ```ts
 * const out = await waitOn([{ run: runtime }], options, ports);
 * if (out.kind === "done") runResult(out.ends[0], receipt);
 * ```
 */
export async function waitOn<R extends FollowedRun>(
  entries: WaitEntry<R>[],
  options: WaitOptions,
  ports: WaitPorts<R>,
): Promise<WaitOutcome> {
  const slots: Slot<R>[] = entries.map((e) => ({
    ...e,
    sent: options.fromStart || !e.run ? 0 : e.run.progressSince(0).length,
  }));
  const loop = (session?: Session) => follow(slots, options, ports, session);
  if (!slots.some(isRead)) return await loop();
  try {
    return await ports.operation(loop);
  } catch (error) {
    const { reason } = asRelayError(error);
    options.log.warn("wait failed", { reason });
    for (const s of slots.filter(isRead)) s.end = readEnd(unavailableRead(s.ref!, reason), true);
    return { kind: "done", ends: await endsOf(slots, ports) };
  }
}

async function follow<R extends FollowedRun>(
  slots: Slot<R>[],
  options: WaitOptions,
  ports: WaitPorts<R>,
  session?: Session,
): Promise<WaitOutcome> {
  const { clock } = options;
  const signal = session?.signal ?? options.signal;
  const wake = new Wake();
  const unwatch = slots.filter(isRead).map((s) =>
    session?.watch?.(s.ref!.threadId, (method) => {
      if (WAKING.has(method)) wake.poke();
    })
  );
  const watched = unwatch.some((u) => u !== undefined);
  const now = clock.now();
  const pass: Pass = {
    deadline: now + options.timeoutMs,
    started: now,
    reads: 0,
    nextReadAt: now,
    pacing: new Pacing(watched, options.pacing),
    wake,
    wakesAtRead: 0,
    watched,
    summary: "",
    notices: 0,
  };
  try {
    while (true) {
      const seen = slots.map((s) => s.run?.version ?? 0);
      const wakes = wake.count;
      await settleFollowed(slots, options, ports);
      const asked = askedOf(slots, ports);
      await readDue(slots, pass, options, ports, session);
      await notify(slots, asked, pass, options, ports);
      if (asked.length > 0) {
        const answer = await ports.ask(asked);
        if (answer === "offered") return { kind: "offered" };
        if (answer === "spent") break;
        continue;
      }
      const done = slots.filter((s) => s.end).length;
      if (untilReached(options.until, done, slots.length)) break;
      if (signal.aborted || clock.now() >= pass.deadline) break;
      if (wake.count === wakes) await sleep(slots, seen, pass, clock, signal);
      else await reported(pass);
    }
  } finally {
    for (const u of unwatch) u?.();
  }
  if (session?.signal.aborted) {
    // The operation was cancelled (the call, its connection): what is still read cannot be known.
    const { reason } = abortReason(session.signal, true);
    for (const s of slots.filter(isRead)) s.end = readEnd(unavailableRead(s.ref!, reason), true);
  }
  return { kind: "done", ends: await endsOf(slots, ports) };
}

/** Followed runs that ended or were lost: final, with their end. Their new notes first. */
async function settleFollowed<R extends FollowedRun>(
  slots: Slot<R>[],
  options: WaitOptions,
  ports: WaitPorts<R>,
) {
  for (const s of slots) {
    const run = s.run;
    if (!run || s.end) continue;
    if (options.progress === "detail") await sendNotes(s, run, ports);
    if (run.ended) {
      // Notes the run took while the last ones went out are not dropped.
      if (options.progress === "detail") await sendNotes(s, run, ports);
      s.end = { kind: "settled", run: await ports.settled(run) };
    } else if (run.lost) s.end = running(run, ports, true);
  }
}

async function sendNotes<R extends FollowedRun>(
  s: Slot<R>,
  run: R,
  ports: WaitPorts<R>,
): Promise<void> {
  for (const text of run.progressSince(s.sent)) {
    await ports.report({ kind: "note", text, n: ++s.sent });
  }
}

/** The followed runs' requests the client can be asked. */
function askedOf<R extends FollowedRun>(slots: Slot<R>[], ports: WaitPorts<R>): Asked[] {
  return slots.flatMap((s) =>
    s.run && !s.end ? ports.askable(s.run).map((request) => ({ runId: s.run!.id, request })) : []
  );
}

/** Reads every read entry when the pause is over, a wake came, or at the deadline. */
async function readDue<R extends FollowedRun>(
  slots: Slot<R>[],
  pass: Pass,
  options: WaitOptions,
  ports: WaitPorts<R>,
  session?: Session,
): Promise<void> {
  const due = slots.filter(isRead);
  if (due.length === 0 || !session) return;
  const { clock } = options;
  const woke = pass.wake.count !== pass.wakesAtRead;
  if (!woke && clock.now() < pass.nextReadAt && clock.now() < pass.deadline) return;
  pass.wakesAtRead = pass.wake.count;
  if (woke) pass.pacing.restart();
  pass.reads++;
  for (const s of due) {
    s.last = await ports.read(session, s.ref!);
    const now = clock.now();
    s.missingSince = notFoundSince(s.last, s.missingSince, now);
    const missingFor = s.missingSince === undefined ? 0 : now - s.missingSince;
    if (isSettled(s.last, pass.watched, missingFor)) s.end = readEnd(s.last, true);
  }
  pass.nextReadAt = clock.now() + pass.pacing.after(due.map((s) => s.last));
  const last = due[0].last!;
  if (options.progress === "detail" && !due[0].end && clock.now() < pass.deadline) {
    const elapsedMs = clock.now() - pass.started;
    const timeoutMs = options.timeoutMs;
    // Sent once the pause is armed, so a listener sees it pending.
    pass.report = () =>
      ports.report({ kind: "read", reads: pass.reads, elapsedMs, timeoutMs, last });
  }
}

/** Sends the count ("2 of 5 done; 1 waiting for approval") when it changed. */
async function notify<R extends FollowedRun>(
  slots: Slot<R>[],
  asked: Asked[],
  pass: Pass,
  options: WaitOptions,
  ports: WaitPorts<R>,
): Promise<void> {
  if (options.progress !== "summary") return;
  const waiting = new Set(asked.map((a) => a.runId)).size;
  const done = slots.filter((s) => s.end).length;
  const text = summaryText({ done, total: slots.length, waiting });
  if (text === pass.summary) return;
  pass.summary = text;
  await ports.report({ kind: "summary", text, n: ++pass.notices });
}

/** Until a followed run changes, the next read is due, a watched thread wakes, or the end. */
async function sleep<R extends FollowedRun>(
  slots: Slot<R>[],
  seen: number[],
  pass: Pass,
  clock: Clock,
  signal: AbortSignal,
): Promise<void> {
  const reads = slots.some(isRead);
  const until = reads ? Math.min(pass.nextReadAt, pass.deadline) : pass.deadline;
  const ms = Math.max(0, until - clock.now());
  if (!slots.some((s) => s.run && !s.end)) {
    // Only reads: one pause on the operation's own signal.
    const paused = pause(clock, ms, signal, pass.wake);
    await reported(pass);
    return void await paused;
  }
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  const waits: Promise<unknown>[] = slots.flatMap((s, i) =>
    s.run && !s.end ? [s.run.waitForChange(seen[i], until, both)] : []
  );
  waits.push(pause(clock, ms, both, reads ? pass.wake : new Wake()));
  try {
    await reported(pass);
    await Promise.race(waits);
  } finally {
    stop.abort();
  }
}

/** Sends the read's progress report, if one is due. */
async function reported(pass: Pass): Promise<void> {
  const report = pass.report;
  pass.report = undefined;
  await report?.();
}

/** Every entry's end: final ones as they are, the others as they stand now. */
async function endsOf<R extends FollowedRun>(
  slots: Slot<R>[],
  ports: WaitPorts<R>,
): Promise<EntryEnd[]> {
  const ends: EntryEnd[] = [];
  for (const s of slots) {
    if (s.end) ends.push(s.end);
    else if (s.run) ends.push(await standing(s, s.run, ports));
    else ends.push(readEnd(s.last ?? unavailableRead(s.ref!, "timeout"), false));
  }
  return ends;
}

/** A followed run still running: what it waits on and, for a message, its replies so far. */
async function standing<R extends FollowedRun>(
  s: Slot<R>,
  run: R,
  ports: WaitPorts<R>,
): Promise<EntryEnd> {
  const end = running(run, ports);
  if (!s.ref) return end;
  try {
    return { ...end, read: await ports.readFollowed(run, s.ref) };
  } catch (error) {
    return { ...end, read: unavailableRead(s.ref, asRelayError(error).reason) };
  }
}

function running<R extends FollowedRun>(
  run: R,
  ports: WaitPorts<R>,
  lost = false,
): Extract<EntryEnd, { kind: "running" }> {
  return {
    kind: "running",
    snapshot: run.snapshot(),
    pendingApprovals: ports.pending(run),
    ...(lost ? { lost: true as const } : {}),
  };
}

function readEnd(read: ReadReplyResult, final: boolean): EntryEnd {
  return { kind: "read", read, final };
}

function isRead<R extends FollowedRun>(s: WaitEntry<R>): boolean {
  return !s.end && !s.run && s.ref !== undefined;
}
