/**
 * A clock that moves only when told, so tests move time by hand instead of
 * waiting.
 * @module
 */

import type { Clock, Timer } from "../src/core/clock.ts";

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
