/**
 * This relay's runs: one map of run records (state: `run_state.ts`, moved
 * by {@linkcode Run.move}), and every view the relay needs derived from it:
 * the run on a thread (one at a time, decided atomically by
 * {@linkcode RunBook.begin}) and its handle, a handle by the run's id, the
 * threads running, the finished run of a message (for followers that come
 * after its end), and one look for `codex_list_threads`. A run's handle is
 * what follows its turn (the registry's: the turn runtime).
 *
 * The listing rule: a live run is listed as it is; a run that ended is listed,
 * with how it ended, by the first look taken after its end and by no later one
 * (at most {@linkcode UNSEEN_MAX} ended runs wait for a look; past it the oldest
 * is dropped); a run whose connection was lost is listed `lost`, with since
 * when, by every look until it is followed again or {@linkcode FINISHED_TTL_MS}
 * passed. A finished run is kept for followers {@linkcode FINISHED_TTL_MS}, at
 * most {@linkcode FINISHED_MAX}. Bookkeeping only, no I/O.
 * @module
 */

import type { CutNotification } from "../reply/cut_schema.ts";
import type { ChangedFile, WorktreeInfo } from "../reply/files_schema.ts";
import type { Clock } from "../core/clock.ts";
import type { DeclinedRequest } from "../elicit/router.ts";
import type { ListedRun, QueuedAhead, ReadReplyResult, RunUsage } from "../reply/schemas.ts";
import type { Failure } from "./classify_failure.ts";
import {
  advance,
  failureOf,
  isFinal,
  phaseOf,
  type RunEvent,
  type RunPhase,
  type RunState,
  STARTING,
} from "./run_state.ts";
import { MESSAGE_JOB, type RunJob } from "./run_job.ts";
import { type Destination, THREAD, worktreeOf } from "./run_facts.ts";

/** How many ended runs wait for the next look. */
export const UNSEEN_MAX = 64;
/** How long a finished run is kept for followers. */
export const FINISHED_TTL_MS = 10 * 60 * 1000;
/** How many finished runs are kept for followers. */
export const FINISHED_MAX = 200;

/** What a run's events came to, as its snapshot reports it (`turn_events.ts` builds it). */
export interface RunView {
  turnId: string | null;
  itemsCompleted: number;
  /** Requests of Codex the relay declined at once because it cannot forward them (newest 20). */
  declinedRequests: DeclinedRequest[];
  /** Messages queued ahead of the run's own whose turns its start also started (ids, never text). */
  queuedAhead: QueuedAhead[];
  /** What the client should know about the run (an answer that counted as a decline, a name not set). */
  notes: string[];
  /** The files its turn changed (a run whose cwd is known: every run this relay started). */
  changedFiles?: ChangedFile[];
  /** How many files it changed in all. */
  changedFilesCount?: number;
  /** The latest thing Codex reported doing, one line (an item started, a failed model request). */
  activity?: string;
  /** Its turn's token usage, when Codex told any. */
  usage?: RunUsage;
  /** Its turn's notifications skipped over the frame bound. */
  cutNotifications?: CutNotification[];
}

/** What a run's runtime reports about its turn: its record's part and its events' view. */
export interface RunSnapshot extends RunView {
  threadId: string;
  clientMessageId: string;
  phase: RunPhase;
  failure?: Failure;
  error?: string;
  /** The worktree it works in (a run whose destination is one). */
  worktree?: WorktreeInfo;
}

/** A run as `codex_list_threads` lists it: with the worktree it works in. */
export type BookEntry = ListedRun & { worktree?: WorktreeInfo };

/** What a run's record tells of it in a snapshot: who, how far, where it goes. */
export type RecordPart = Pick<
  RunSnapshot,
  "threadId" | "clientMessageId" | "phase" | "failure" | "error" | "worktree"
>;

/** The part of `run`'s snapshot its record holds (the rest is its events', `turn_events.ts`). */
export function recordPart(run: Run): RecordPart {
  return {
    threadId: run.threadId,
    clientMessageId: run.clientMessageId,
    phase: phaseOf(run.state),
    failure: failureOf(run.state),
    // Only an ended run has an error.
    error: (run.state as { error?: string }).error,
    ...worktreeOf(run.destination),
  };
}

/** A finished run, as results report it. */
export interface FinishedRun {
  /** The runtime's last report. */
  snapshot: RunSnapshot;
  /** Its replies, read when it ended (reply-read level only). */
  replies?: ReadReplyResult;
}

/** One run of this relay. `H` is what follows its turn (the turn runtime). */
export interface Run<H = unknown> {
  readonly id: string;
  readonly threadId: string;
  readonly clientMessageId: string;
  /** What it does: a queued message, a structured run, a review (`run_job.ts`). */
  readonly job: RunJob;
  /** Where it goes: a thread, a new one in a cwd or in a worktree (`run_facts.ts`). */
  readonly destination: Destination;
  /** Wall-clock ms when it began. */
  readonly startedAt: number;
  /** Where it is (change it only through {@linkcode Run.move}). */
  readonly state: RunState;
  /** What follows its turn, once the run holds a connection. */
  handle?: H;
  /** Aborted by an interrupt while the run starts (its reads stop at once). */
  readonly cancel: AbortController;
  /** Resolves with its end once it ended and its replies were read. */
  readonly settled: Promise<FinishedRun>;
  /** Resolves once it is no longer starting (its message queued, or its start given up). */
  readonly started: Promise<void>;
  /** Its end, once settled. */
  readonly finished?: FinishedRun;
  /** Moves it by `event` (`run_state.ts`); returns its new state. */
  move(event: RunEvent): RunState;
}

/** The mutable record behind a {@linkcode Run}. */
interface RunRecord<H> extends Run<H> {
  state: RunState;
  finished?: FinishedRun;
  resolve: (run: FinishedRun) => void;
  leftStart: () => void;
  /** Clock ms when it ended or was lost. */
  finalAt?: number;
  /** The order runs became final in. */
  finalSeq?: number;
  /** A look listed it after its end. */
  listed: boolean;
  /** The lost records of its message that it replaced (an attach again). */
  supersedes: RunRecord<H>[];
}

/** The book. */
export class RunBook<H = unknown> {
  readonly #clock: Clock;
  readonly #wallNow: () => number;
  readonly #pending: (run: Run<H>) => number;
  readonly #runs = new Map<string, RunRecord<H>>();
  #finals = 0;
  #closing = false;

  /**
   * `wallNow`: wall-clock ms (the listed `startedAt`, `lostAt`; default `Date.now`); `pending`:
   * how many Codex requests of a live run wait for the client (listed).
   */
  constructor(clock: Clock, wallNow: (() => number) | undefined, pending: (run: Run<H>) => number) {
    this.#clock = clock;
    this.#wallNow = wallNow ?? Date.now;
    this.#pending = pending;
  }

  /**
   * A new run of `clientMessageId` on `threadId` in `state` (default
   * starting), doing `job` at `destination` (its facts, never written
   * later), or undefined when the thread has a live run already or the
   * book is closing: the one check and the insert happen together, so of
   * concurrent starts one wins.
   */
  begin(
    threadId: string,
    clientMessageId: string,
    state: RunState = STARTING,
    job: RunJob = MESSAGE_JOB,
    destination: Destination = THREAD,
  ): Run<H> | undefined {
    if (this.#closing || this.run(threadId)) return undefined;
    const supersedes: RunRecord<H>[] = [];
    for (const [id, r] of this.#runs) {
      // The same message followed again: its lost record is superseded (back if this is forgotten).
      if (
        r.state.kind === "lost" && r.threadId === threadId && r.clientMessageId === clientMessageId
      ) {
        supersedes.push(r);
        this.#runs.delete(id);
      }
    }
    const settled = Promise.withResolvers<FinishedRun>();
    const started = Promise.withResolvers<void>();
    const record: RunRecord<H> = {
      id: crypto.randomUUID(),
      threadId,
      clientMessageId,
      job,
      destination,
      startedAt: this.#wallNow(),
      state,
      cancel: new AbortController(),
      settled: settled.promise,
      resolve: settled.resolve,
      started: started.promise,
      leftStart: started.resolve,
      listed: false,
      supersedes,
      move: (event) => this.#move(record, event),
    };
    if (state.kind !== "starting") started.resolve();
    this.#runs.set(record.id, record);
    return record;
  }

  /** Whether the book is closing (no run may begin). */
  get closing(): boolean {
    return this.#closing;
  }

  /** From now on no run begins. */
  close(): void {
    this.#closing = true;
  }

  /** Moves `record` by `event`; a run no longer in the book (forgotten, evicted) stays as it is. */
  #move(record: RunRecord<H>, event: RunEvent): RunState {
    if (this.#runs.get(record.id) !== record) return record.state;
    const was = record.state;
    record.state = advance(was, event);
    if (record.state.kind !== "starting") record.leftStart();
    if (!isFinal(was) && isFinal(record.state)) {
      record.finalAt = this.#clock.now();
      record.finalSeq = this.#finals++;
      this.#evict();
    }
    return record.state;
  }

  /** Records how `run` ended (its replies read) and wakes everyone waiting on it. */
  settle(run: Run<H>, finished: FinishedRun): void {
    const record = run as RunRecord<H>;
    record.finished = finished;
    // Its end is kept, never its handle: a runtime holds its connection and, through it, the
    // helper process's streams (issue 46: ~0.3-1.1 MiB of C heap per run, for 200 kept runs).
    record.handle = undefined;
    record.resolve(finished);
  }

  /**
   * Forgets a run that is no run (its start failed before anything was queued,
   * or its attach): a lost run it replaced is lost again.
   */
  forget(run: Run<H>, finished?: FinishedRun): void {
    if (this.#runs.delete(run.id)) {
      for (const r of (run as RunRecord<H>).supersedes) this.#runs.set(r.id, r);
    }
    (run as RunRecord<H>).leftStart();
    if (finished) (run as RunRecord<H>).resolve(finished);
  }

  /** The live run on `threadId` (starting, queued or running), if any. */
  run(threadId: string): Run<H> | undefined {
    for (const r of this.#runs.values()) if (r.threadId === threadId && !isFinal(r.state)) return r;
    return undefined;
  }

  /** A run's handle by the run's id (absent once the run settled or is gone, or had none). */
  byId(id: string): H | undefined {
    return this.#runs.get(id)?.handle;
  }

  /** The live runs. */
  lives(): Run<H>[] {
    return [...this.#runs.values()].filter((r) => !isFinal(r.state));
  }

  /** The threads with a run whose message is queued or whose turn runs. */
  runningThreads(): ReadonlySet<string> {
    return new Set(this.lives().filter((r) => r.state.kind !== "starting").map((r) => r.threadId));
  }

  /** The finished run of this message, if this relay ran it within {@linkcode FINISHED_TTL_MS}. */
  finished(threadId: string, clientMessageId: string): FinishedRun | undefined {
    return this.settledRun(threadId, clientMessageId)?.finished;
  }

  /** The run of {@linkcode finished}'s end (its job too). */
  settledRun(threadId: string, clientMessageId: string): Run<H> | undefined {
    const mine = (r: RunRecord<H>) =>
      r.threadId === threadId && r.clientMessageId === clientMessageId;
    const kept = (r: RunRecord<H>) => r.state.kind === "ended" && r.finished && !this.#expired(r);
    return [...this.#runs.values()].findLast((r) => mine(r) && kept(r));
  }

  /**
   * The lost run of this message (its connection lost within {@linkcode FINISHED_TTL_MS}), if any:
   * what a later follower attaches to, or reads, by its job and turn.
   */
  lostRun(threadId: string, clientMessageId: string): Run<H> | undefined {
    for (const r of this.#runs.values()) {
      const mine = r.threadId === threadId && r.clientMessageId === clientMessageId;
      if (mine && r.state.kind === "lost" && !this.#expired(r)) return r;
    }
    return undefined;
  }

  /**
   * One look (`codex_list_threads`): the live runs as they are (with their
   * pending requests), the lost ones, then the ended runs no look listed yet
   * (listed now, and by no later look).
   */
  look(): BookEntry[] {
    const out: BookEntry[] = [];
    const ended: RunRecord<H>[] = [];
    for (const r of this.#runs.values()) {
      if (r.state.kind === "ended") {
        if (!r.listed) ended.push(r);
      } else if (!this.#expired(r)) { // A live run is never expired; a lost one after the TTL.
        out.push(this.#entry(r, this.#pending(r)));
      }
    }
    for (const r of ended.sort((a, b) => a.finalSeq! - b.finalSeq!)) {
      out.push(this.#entry(r, 0));
      r.listed = true;
    }
    this.#evict();
    return out;
  }

  #entry(r: RunRecord<H>, pending: number): BookEntry {
    const startedAt = new Date(r.startedAt).toISOString();
    const base = { threadId: r.threadId, clientMessageId: r.clientMessageId, startedAt };
    const where = worktreeOf(r.destination);
    if (r.state.kind === "lost") {
      return { ...base, state: "lost", lostAt: new Date(r.state.since).toISOString(), ...where };
    }
    const phase = phaseOf(r.state);
    const waiting = phase === "running" && pending > 0;
    return {
      threadId: r.threadId,
      clientMessageId: r.clientMessageId,
      state: waiting ? "waiting_for_approval" : phase,
      ...(pending > 0 ? { pendingRequests: pending } : {}),
      startedAt,
      ...where,
    };
  }

  #expired(r: RunRecord<H>): boolean {
    // A run that is not final has no finalAt: NaN is never past the TTL.
    return this.#clock.now() - r.finalAt! > FINISHED_TTL_MS;
  }

  /**
   * Drops final runs nobody needs: a lost run past the TTL; an ended run once
   * it is neither kept for followers (within the TTL and the newest
   * {@linkcode FINISHED_MAX}) nor waiting for a look (unlisted, among the newest
   * {@linkcode UNSEEN_MAX}).
   */
  #evict(): void {
    const ended = [...this.#runs.values()].filter((r) => r.state.kind === "ended")
      .sort((a, b) => b.finalSeq! - a.finalSeq!);
    const kept = new Set(ended.filter((r) => !this.#expired(r)).slice(0, FINISHED_MAX));
    // Past the bound the oldest unseen run is dropped from the list (kept for followers). A look
    // lists every ended run: the unseen ones are the newest, so the newest are the ones counted.
    for (const r of ended.slice(UNSEEN_MAX)) r.listed = true;
    for (const r of ended) if (!kept.has(r) && r.listed) this.#runs.delete(r.id);
    for (const r of this.#runs.values()) {
      if (r.state.kind === "lost" && this.#expired(r)) this.#runs.delete(r.id);
    }
  }
}
