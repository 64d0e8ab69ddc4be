/**
 * A short record of the runs this relay finished, for the followers that come
 * after a run ended (`codex_wait_reply`, a retried `codex_run` round): kept
 * for 10 minutes, at most 200.
 * @module
 */

import type { Clock } from "../core/clock.ts";
import type { ReadReplyResult } from "../reply/schemas.ts";
import type { RunSnapshot } from "./turn_runtime.ts";

/** A finished run. */
export interface FinishedRun {
  /** The runtime's last report. */
  snapshot: RunSnapshot;
  /** Its replies, read when it ended (reply-read level only). */
  replies?: ReadReplyResult;
}

/** How long a finished run is kept. */
export const FINISHED_TTL_MS = 10 * 60 * 1000;
/** How many finished runs are kept. */
export const FINISHED_MAX = 200;

/** The record. */
export class FinishedRuns {
  readonly #clock: Clock;
  readonly #runs = new Map<string, { run: FinishedRun; at: number }>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Records `run`, dropping expired runs and the oldest past the cap. */
  add(run: FinishedRun): void {
    const now = this.#clock.now();
    for (const [key, value] of this.#runs) {
      if (now - value.at > FINISHED_TTL_MS) this.#runs.delete(key);
    }
    this.#runs.set(key(run.snapshot.threadId, run.snapshot.clientMessageId), { run, at: now });
    while (this.#runs.size > FINISHED_MAX) this.#runs.delete(this.#runs.keys().next().value!);
  }

  /** The finished run of this message, unless it expired. */
  get(threadId: string, clientMessageId: string): FinishedRun | undefined {
    const entry = this.#runs.get(key(threadId, clientMessageId));
    if (!entry || this.#clock.now() - entry.at > FINISHED_TTL_MS) return undefined;
    return entry.run;
  }
}

function key(threadId: string, clientMessageId: string): string {
  return `${threadId}\0${clientMessageId}`;
}
