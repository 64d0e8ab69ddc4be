/**
 * This relay's runs as `codex_list_threads` shows them ("one look at
 * everything running"): when each run started, and the runs that ended
 * since the last look. The rule: a run that ended is listed, with how it
 * ended, by the first look taken after its end (a `codex_list_threads`
 * call at the turn-start level, whatever its status), and by no later one.
 * At most {@linkcode UNSEEN_MAX} ended runs wait for a look; past it the
 * oldest is dropped. Pure bookkeeping, no I/O.
 * @module
 */

import type { ListedRun } from "../ops/listed_runs.ts";
import type { RunPhase } from "./runtime_types.ts";

/** How many ended runs wait for the next look. */
export const UNSEEN_MAX = 64;

/** What the board needs to know of a live run. */
export interface LiveRun {
  id: string;
  threadId: string;
  clientMessageId: string;
  phase: RunPhase;
  /** Requests of Codex waiting for the client's answer. */
  pending: number;
}

/** The board. */
export class RunBoard {
  readonly #wallNow: () => number;
  readonly #started = new Map<string, string>();
  #unseen: ListedRun[] = [];

  /** `wallNow`: wall-clock milliseconds (the listed `startedAt`). */
  constructor(wallNow: () => number = Date.now) {
    this.#wallNow = wallNow;
  }

  /** A run began (its runtime was made). */
  began(id: string): void {
    this.#started.set(id, new Date(this.#wallNow()).toISOString());
  }

  /** A run ended as `run.phase`: the next look lists it. */
  ended(run: LiveRun): void {
    this.#unseen.push(this.#entry(run));
    this.#started.delete(run.id);
    if (this.#unseen.length > UNSEEN_MAX) this.#unseen.shift();
  }

  /** A runtime that is no run any more (its start failed, or it lost its turn). */
  forget(id: string): void {
    this.#started.delete(id);
  }

  /** The live runs as they are, then the ended runs not looked at yet (taken: shown once). */
  look(live: readonly LiveRun[]): ListedRun[] {
    const out = live.map((run) => this.#entry(run));
    out.push(...this.#unseen);
    this.#unseen = [];
    return out;
  }

  #entry(run: LiveRun): ListedRun {
    const state = run.phase === "running" && run.pending > 0 ? "waiting_for_approval" : run.phase;
    return {
      threadId: run.threadId,
      clientMessageId: run.clientMessageId,
      state,
      ...(run.pending > 0 && !isEnd(run.phase) ? { approvals: run.pending } : {}),
      startedAt: this.#started.get(run.id) ?? null,
    };
  }
}

function isEnd(phase: RunPhase): boolean {
  return phase === "completed" || phase === "failed" || phase === "interrupted";
}
