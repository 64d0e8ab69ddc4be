/**
 * Deadlines for test waits: no test waits forever on a barrier, a close or a
 * condition; a wait that runs out fails with a message naming what it waited for.
 * @module
 */

import type { TurnRuntime } from "../src/turn/turn_runtime.ts";

/** How long a test waits for something the fixture or the relay should do promptly. */
export const WAIT_DEADLINE_MS = 30_000;

/** Thrown when a wait runs past its deadline. */
export class DeadlineError extends Error {
  override name = "DeadlineError";
}

/**
 * Resolves with `promise`, or rejects with a {@linkcode DeadlineError} saying
 * `what` did not happen within `ms`; `onLate` runs first (to unblock what is stuck).
 * The timer is always cleared.
 */
export async function within<T>(
  promise: Promise<T>,
  what: string,
  ms: number = WAIT_DEADLINE_MS,
  onLate?: () => Promise<void> | void,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = Symbol("late");
  const deadline = new Promise<typeof late>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  try {
    const first = await Promise.race([promise, deadline]);
    if (first === late) {
      await onLate?.();
      throw new DeadlineError(`${what} did not happen within ${ms} ms`);
    }
    return first as T;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits on the runtime's own change events (not on time) until `ready()`
 * holds; fails after `ms` of real time with what it waited for.
 */
export async function untilChanged(
  runtime: TurnRuntime,
  ready: () => boolean,
  what: string,
  ms: number = WAIT_DEADLINE_MS,
): Promise<void> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), ms);
  try {
    while (!ready()) {
      if (stop.signal.aborted) throw new DeadlineError(`${what} did not happen within ${ms} ms`);
      await runtime.waitForChange(runtime.version, Number.MAX_SAFE_INTEGER, stop.signal);
    }
  } finally {
    clearTimeout(timer);
  }
}
