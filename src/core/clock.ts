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

/** The time source the owner and the turn runtime measure budgets with. */
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

/** A clock that moves only when told, for tests. */
export class ManualClock implements Clock {
  #now = 0;
  #timers = new Set<{ at: number; fn: () => void }>();

  /** The current time. */
  now(): number {
    return this.#now;
  }

  /** Schedules `fn` at now + `ms`. */
  after(ms: number, fn: () => void): Timer {
    const timer = { at: this.#now + Math.max(0, ms), fn };
    this.#timers.add(timer);
    return { cancel: () => this.#timers.delete(timer) };
  }

  /** The number of timers waiting. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing due timers in order. */
  advance(ms: number): void {
    const target = this.#now + ms;
    while (true) {
      let next: { at: number; fn: () => void } | undefined;
      for (const t of this.#timers) if (t.at <= target && (!next || t.at < next.at)) next = t;
      if (!next) break;
      this.#timers.delete(next);
      this.#now = next.at;
      next.fn();
    }
    this.#now = target;
  }
}
