/**
 * A guard for tests of loops on a clock (the wait engine): a loop that spins
 * where it should pause never lets the test go on, and would hang it; through
 * this clock it fails instead.
 * @module
 */

import type { Clock } from "../src/core/clock.ts";

/**
 * `clock`, failing the caller that reads the time more than `limit` times
 * while it stands still (a loop that spins instead of pausing).
 *
 * @example
 * ```ts
 * const clock = new ManualClock();
 * await waitOn(entries, { ...options, clock: spinGuard(clock) }, ports);
 * ```
 */
export function spinGuard(clock: Clock, limit = 10_000): Clock {
  let at: number | undefined;
  let reads = 0;
  return {
    now() {
      const now = clock.now();
      if (now !== at) [at, reads] = [now, 0];
      else if (++reads > limit) {
        throw new Error(`spins: read the clock ${reads} times at ${now} ms`);
      }
      return now;
    },
    after: (ms, fn) => clock.after(ms, fn),
  };
}
