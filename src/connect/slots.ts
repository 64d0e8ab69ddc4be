/**
 * Caps what a backend runs at once (the spawn backend's helpers, the daemon's
 * operations in flight); further operations wait in a bounded queue.
 * @module
 */

import { RelayError } from "../core/errors.ts";

interface Waiter {
  grant: () => void;
  refuse: (error: RelayError) => void;
}

/** A counting semaphore with a bounded FIFO wait queue. */
export class Slots {
  readonly #max: number;
  readonly #queueMax: number;
  readonly #waiters: Waiter[] = [];
  #inUse = 0;
  #peak = 0;

  readonly #what: string;

  /** `what` names the slots in the `busy` message (e.g. "helpers", "operation slots"). */
  constructor(max: number, queueMax: number, what: string) {
    this.#max = max;
    this.#queueMax = queueMax;
    this.#what = what;
  }

  /** Slots in use now. */
  get inUse(): number {
    return this.#inUse;
  }

  /** The most slots ever in use at once. */
  get peak(): number {
    return this.#peak;
  }

  /** Operations waiting for a slot. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * Takes a slot, waiting in the queue if all are taken. Fails `busy` when the
   * queue is full, and `busy`/`cancelled` when `signal` aborts while waiting
   * (its reason decides: a deadline is `busy`, anything else `cancelled`).
   * Resolves with the function that gives the slot back (idempotent).
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.#inUse < this.#max) return Promise.resolve(this.#take());
    if (this.#waiters.length >= this.#queueMax) {
      return Promise.reject(
        new RelayError(
          "busy",
          `All ${this.#max} ${this.#what} are busy and ${this.#queueMax} calls are waiting`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.#take());
        },
        refuse: reject,
      };
      const onAbort = () => {
        const i = this.#waiters.indexOf(waiter);
        if (i !== -1) this.#waiters.splice(i, 1);
        reject(
          signal?.reason instanceof RelayError
            ? signal.reason
            : new RelayError("cancelled", "The operation was cancelled"),
        );
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Takes a free slot at once, never waiting: the function that gives it back, or undefined. */
  tryTake(): (() => void) | undefined {
    return this.#inUse < this.#max ? this.#take() : undefined;
  }

  #take(): () => void {
    this.#inUse++;
    this.#peak = Math.max(this.#peak, this.#inUse);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inUse--;
      this.#waiters.shift()?.grant();
    };
  }
}
