/**
 * The time source of budgets and timeouts, injectable so tests can move time
 * by hand instead of waiting.
 * @module
 */

/** A cancellable timer handle. */
export interface Timer {
  /** Stops the timer; calling it again does nothing. */
  cancel(): void;
}

/** The time source connections and the turn runtime measure budgets with. */
export interface Clock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  /** Calls `fn` once after `ms` milliseconds unless cancelled. */
  after(ms: number, fn: () => void): Timer;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => performance.now(),
  after(ms, fn) {
    const id = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(id) };
  },
};
