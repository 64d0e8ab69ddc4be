/**
 * What followers of a turn runtime wait on: a version that moves whenever
 * something they care about happens, and the run's progress messages. The
 * runtime is one (it extends {@linkcode RunChanges}).
 * @module
 */

import type { Clock } from "../core/clock.ts";

/** A run's changes. */
export class RunChanges {
  readonly #clock: Clock;
  readonly #waiters = new Set<() => void>();
  readonly #progress: string[] = [];
  #version = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** A counter that moves whenever something a follower cares about happens. */
  get version(): number {
    return this.#version;
  }

  /** Progress messages from index `from` on. */
  progressSince(from: number): string[] {
    return this.#progress.slice(from);
  }

  /** Records a progress message (a change). */
  protected progress(message: string): void {
    this.#progress.push(message);
    this.changed();
  }

  /** Moves the version and wakes every waiter (RuntimeHandle: the router's changes too). */
  changed(): void {
    this.#version++;
    for (const wake of [...this.#waiters]) wake();
  }

  /** Resolves when `version` moves past `seen`, at `untilMs` (clock time), or on abort. */
  waitForChange(seen: number, untilMs: number, signal: AbortSignal): Promise<void> {
    if (this.#version !== seen || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#waiters.delete(done);
        timer.cancel();
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = this.#clock.after(Math.max(0, untilMs - this.#clock.now()), done);
      signal.addEventListener("abort", done, { once: true });
      this.#waiters.add(done);
    });
  }
}
