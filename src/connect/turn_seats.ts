/**
 * The bound of turns a backend follows at once (each held connection is one
 * turn runtime's, attached turns included). Past it a hold fails `busy` at
 * once: a turn may run for minutes, so waiting for a seat would only spend the
 * caller's budget. Both backends use it, each with its own bound.
 * @module
 */

import { RelayError } from "../core/errors.ts";

/** A count of held connections with a ceiling that refuses at once. */
export class TurnSeats {
  readonly #max: number;
  readonly #where: string;
  #inUse = 0;
  #peak = 0;

  /** `where` ends the `busy` message ("in spawn mode"). */
  constructor(max: number, where: string) {
    this.#max = max;
    this.#where = where;
  }

  /** Seats taken now (holds open or opening). */
  get inUse(): number {
    return this.#inUse;
  }

  /** The most seats ever taken at once. */
  get peak(): number {
    return this.#peak;
  }

  /**
   * Takes a seat, or throws `busy` (nothing written) when all are taken.
   * Returns the function that gives it back (idempotent).
   */
  take(): () => void {
    if (this.#inUse >= this.#max) {
      throw new RelayError(
        "busy",
        `${this.#inUse} turns are running, the most this relay runs at once ${this.#where}; wait for one to end (codex_wait_reply) or interrupt one (codex_interrupt)`,
        { written: false },
      );
    }
    this.#inUse++;
    this.#peak = Math.max(this.#peak, this.#inUse);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#inUse--;
    };
  }
}
