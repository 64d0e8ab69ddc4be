/**
 * A time budget shared by the RPCs of one operation (or of one start): what
 * is left of it, and a signal that aborts with `timeout` when it is spent.
 * @module
 */

import { RelayError } from "../core/errors.ts";
import { formatBound } from "../core/duration.ts";
import type { Clock } from "../core/clock.ts";

/** The error of a spent operation budget. */
export function budgetSpent(budgetMs: number, written: boolean): RelayError {
  return new RelayError(
    "timeout",
    `The operation did not finish within ${formatBound(budgetMs)}`,
    { written },
  );
}

/** A budget of `ms` milliseconds on `clock`, starting now. */
export class Budget {
  readonly #clock: Clock;
  readonly #start: number;
  readonly #controller = new AbortController();
  readonly #timer;
  /** The budget in milliseconds. */
  readonly ms: number;

  /** `spent` is the error the signal aborts with (default {@linkcode budgetSpent}). */
  constructor(ms: number, clock: Clock, spent: RelayError = budgetSpent(ms, true)) {
    this.ms = ms;
    this.#clock = clock;
    this.#start = clock.now();
    this.#timer = clock.after(ms, () => this.#controller.abort(spent));
  }

  /** Aborted with the budget's error once it is spent. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Milliseconds left (0 once spent). */
  remainingMs(): number {
    return Math.max(0, this.ms - (this.#clock.now() - this.#start));
  }

  /** Stops the timer (the operation is over). */
  cancel(): void {
    this.#timer.cancel();
  }
}
