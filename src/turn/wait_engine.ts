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
import { abortReason, asRelayError, type ReasonCode } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Session } from "../connect/connection.ts";
import type { Pending } from "../elicit/router.ts";
import type { ReadReplyInput } from "../ops/read_reply.ts";
import { isSettled, notFoundSince, Pacing, pause, Wake, WAKING } from "./wait_pacing.ts";
import { unavailableRead } from "../reply/read_result.ts";
import type { ReadReplyResult } from "../reply/schemas.ts";
import { summaryText, untilReached, type WaitUntil } from "../reply/wait_set.ts";
import type { FinishedRun } from "./run_book.ts";
import type { RequestSummary } from "../reply/schemas.ts";
import type { EntryEnd } from "./run_result.ts";
import type { RunSnapshot } from "./run_book.ts";

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
  pending(run: R): RequestSummary[];
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

/**
 * Follows and reads `entries` until `until` is reached, the deadline, an
 * abort, or a request to offer. An entry is final (`timedOut` false in its
 * result) exactly when its end is: a run that ended, a lost run, a settled
 * read ({@linkcode isSettled}).
 *
 * @example
 * ```ts ignore
 * const out = await waitOn([{ run: runtime }], options, ports);
 * if (out.kind === "done") runResult(out.ends[0], receipt);
 * ```
 */
export async function waitOn<R extends FollowedRun>(
  entries: WaitEntry<R>[],
  options: WaitOptions,
  ports: WaitPorts<R>,
): Promise<WaitOutcome> {
  const { log } = options;
  const wait = new Wait(entries, options, ports);
  if (!wait.slots.some(isRead)) return await wait.follow();
  try {
    return await ports.operation((session) => wait.follow(session));
  } catch (error) {
    const { reason } = asRelayError(error);
    log.warn("wait failed", { reason });
    return await wait.done(reason);
  }
}

/** One wait: its entries and where its reads, pacing and progress are. */
class Wait<R extends FollowedRun> {
  readonly slots: Slot<R>[];
  readonly #options: WaitOptions;
  readonly #ports: WaitPorts<R>;
  readonly #clock: Clock;
  readonly #wake = new Wake();
  readonly #started: number;
  readonly #deadline: number;
  /** Set by `follow()`, which every read comes after. */
  #pacing!: Pacing;
  #watched!: boolean;
  #reads = 0;
  #nextReadAt: number;
  #wakesAtRead = 0;
  #summary: string | undefined;
  #notices = 0;
  /** The progress report of the last read, sent once the pause is armed. */
  #report: (() => Promise<void>) | undefined;

  constructor(entries: WaitEntry<R>[], options: WaitOptions, ports: WaitPorts<R>) {
    this.#options = options;
    this.#ports = ports;
    this.#clock = options.clock;
    this.slots = entries.map((e) => ({
      ...e,
      sent: options.fromStart || !e.run ? 0 : e.run.progressSince(0).length,
    }));
    this.#started = this.#nextReadAt = this.#clock.now();
    this.#deadline = this.#started + options.timeoutMs;
  }

  /** The loop, on `session` when there are messages to read. */
  async follow(session?: Session): Promise<WaitOutcome> {
    const signal = session?.signal ?? this.#options.signal;
    // A wait has a session exactly when it has messages to read.
    const unwatch = this.slots.filter(isRead).map((s) =>
      session!.watch?.(s.ref!.threadId, (method) => {
        if (WAKING.has(method)) this.#wake.poke();
      })
    );
    this.#watched = session?.watch !== undefined;
    this.#pacing = new Pacing(this.#watched, this.#options.pacing);
    try {
      while (true) {
        const seen = this.slots.map((s) => s.run?.version ?? 0);
        const wakes = this.#wake.count;
        await this.#settleFollowed();
        const asked = this.#asked();
        await this.#readDue(session);
        await this.#notify(asked);
        if (asked.length > 0) {
          const answer = await this.#ports.ask(asked);
          if (answer === "offered") return { kind: "offered" };
          if (answer === "spent") break;
          continue;
        }
        const done = this.slots.filter((s) => s.end).length;
        if (untilReached(this.#options.until, done, this.slots.length)) break;
        if (signal.aborted || this.#clock.now() >= this.#deadline) break;
        if (this.#wake.count === wakes) await this.#sleep(seen, signal);
        else await this.#reported();
      }
    } finally {
      for (const u of unwatch) u?.();
    }
    // The operation cancelled (the call, its connection): what is still read cannot be known.
    // Stryker disable next-line BooleanLiteral: only the reason is kept, whether it was written never reaches a result
    const cancelled = session?.signal.aborted ? abortReason(session.signal, true) : undefined;
    return await this.done(cancelled?.reason);
  }

  /** Every entry's end (the read ones `unavailable` for `reason`, if given): final ones as they are, the others as they stand. */
  async done(reason?: ReasonCode): Promise<WaitOutcome> {
    const ends: EntryEnd[] = [];
    for (const s of this.slots) {
      if (reason && isRead(s)) s.end = readEnd(unavailableRead(s.ref!, reason), true);
      if (s.end) ends.push(s.end);
      else if (s.run) ends.push(await this.#standing(s, s.run));
      // A read entry is read in the loop's first pass: every way out before it gives a reason.
      else ends.push(readEnd(s.last!, false));
    }
    return { kind: "done", ends };
  }

  /** Followed runs that ended or were lost: final, with their end. Their new notes first. */
  async #settleFollowed(): Promise<void> {
    for (const s of this.slots) {
      const run = s.run;
      if (!run || s.end) continue;
      await this.#sendNotes(s, run);
      if (run.ended) {
        // Notes the run took while the last ones went out are not dropped.
        await this.#sendNotes(s, run);
        s.end = { kind: "settled", run: await this.#ports.settled(run) };
      } else if (run.lost) s.end = this.#running(run, true);
    }
  }

  async #sendNotes(s: Slot<R>, run: R): Promise<void> {
    if (this.#options.progress !== "detail") return;
    for (const text of run.progressSince(s.sent)) {
      await this.#ports.report({ kind: "note", text, n: ++s.sent });
    }
  }

  /** The followed runs' requests the client can be asked. */
  #asked(): Asked[] {
    return this.slots.flatMap((s) =>
      s.run && !s.end
        ? this.#ports.askable(s.run).map((request) => ({ runId: s.run!.id, request }))
        : []
    );
  }

  /** Reads every read entry when the pause is over, a wake came, or at the deadline. */
  async #readDue(session?: Session): Promise<void> {
    const due = this.slots.filter(isRead);
    if (due.length === 0 || !session) return;
    const clock = this.#clock;
    const woke = this.#wake.count !== this.#wakesAtRead;
    if (!woke && clock.now() < this.#nextReadAt && clock.now() < this.#deadline) return;
    this.#wakesAtRead = this.#wake.count;
    if (woke) this.#pacing.restart();
    const reads = ++this.#reads;
    for (const s of due) {
      s.last = await this.#ports.read(session, s.ref!);
      const now = clock.now();
      s.missingSince = notFoundSince(s.last, s.missingSince, now);
      const missingFor = now - (s.missingSince ?? now);
      if (isSettled(s.last, this.#watched, missingFor)) s.end = readEnd(s.last, true);
    }
    this.#nextReadAt = clock.now() + this.#pacing.after(due.map((s) => s.last));
    const last = due[0].last!;
    // One entry: a read that ends it, or one at the deadline, ends the wait before this goes out.
    if (this.#options.progress === "detail") {
      const elapsedMs = clock.now() - this.#started;
      const timeoutMs = this.#options.timeoutMs;
      // Sent once the pause is armed, so a listener sees it pending.
      this.#report = () => this.#ports.report({ kind: "read", reads, elapsedMs, timeoutMs, last });
    }
  }

  /** Sends the count ("2 of 5 done; 1 waiting for approval") when it changed. */
  async #notify(asked: Asked[]): Promise<void> {
    if (this.#options.progress !== "summary") return;
    const waiting = new Set(asked.map((a) => a.runId)).size;
    const done = this.slots.filter((s) => s.end).length;
    const text = summaryText({ done, total: this.slots.length, waiting });
    if (text === this.#summary) return;
    this.#summary = text;
    await this.#ports.report({ kind: "summary", text, n: ++this.#notices });
  }

  /** Until a followed run changes, the next read is due, a watched thread wakes, or the end. */
  async #sleep(seen: number[], signal: AbortSignal): Promise<void> {
    const reads = this.slots.some(isRead);
    const until = reads ? Math.min(this.#nextReadAt, this.#deadline) : this.#deadline;
    const ms = Math.max(0, until - this.#clock.now());
    if (!this.slots.some((s) => s.run && !s.end)) {
      // Only reads: one pause on the operation's own signal.
      const paused = pause(this.#clock, ms, signal, this.#wake);
      await this.#reported();
      return void await paused;
    }
    const stop = new AbortController();
    const both = AbortSignal.any([signal, stop.signal]);
    const waits: Promise<unknown>[] = this.slots.flatMap((s, i) =>
      s.run && !s.end ? [s.run.waitForChange(seen[i], until, both)] : []
    );
    waits.push(pause(this.#clock, ms, both, this.#wake));
    try {
      await this.#reported();
      await Promise.race(waits);
    } finally {
      stop.abort();
    }
  }

  /** Sends the last read's progress report, if one is due. */
  async #reported(): Promise<void> {
    const report = this.#report;
    this.#report = undefined;
    await report?.();
  }

  /** A followed run still running: what it waits on and, for a message, its replies so far. */
  async #standing(s: Slot<R>, run: R): Promise<EntryEnd> {
    const end = this.#running(run);
    if (!s.ref) return end;
    try {
      return { ...end, read: await this.#ports.readFollowed(run, s.ref) };
    } catch (error) {
      return { ...end, read: unavailableRead(s.ref, asRelayError(error).reason) };
    }
  }

  #running(run: R, lost = false): Extract<EntryEnd, { kind: "running" }> {
    return {
      kind: "running",
      snapshot: run.snapshot(),
      pendingRequests: this.#ports.pending(run),
      ...(lost ? { lost: true as const } : {}),
    };
  }
}

function readEnd(read: ReadReplyResult, final: boolean): EntryEnd {
  return { kind: "read", read, final };
}

/** An entry to read: a message whose run is not followed, its end not known (every entry has a `ref` or a `run`). */
function isRead(s: WaitEntry<FollowedRun>): boolean {
  return !s.end && !s.run;
}
