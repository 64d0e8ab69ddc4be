/**
 * The bound of turns a backend follows at once (each held connection is one
 * turn runtime's, attached turns included). Past it a hold fails `busy` at
 * once: a turn may run for minutes, so waiting for a seat would only spend the
 * caller's budget. Both backends use it, each with its own bound.
 * @module
 */

import { RelayError } from "../core/errors.ts";
import { Slots } from "./slots.ts";

/** A count of held connections with a ceiling that refuses at once. */
export class TurnSeats {
  readonly #slots: Slots;
  readonly #where: string;

  /** `where` ends the `busy` message ("in spawn mode"). */
  constructor(max: number, where: string) {
    this.#slots = new Slots(max, 0, "turn seats");
    this.#where = where;
  }

  /** Seats taken now (holds open or opening). */
  get inUse(): number {
    return this.#slots.inUse;
  }

  /** The most seats ever taken at once. */
  get peak(): number {
    return this.#slots.peak;
  }

  /**
   * Takes a seat, or throws `busy` (nothing written) when all are taken.
   * Returns the function that gives it back (idempotent).
   */
  take(): () => void {
    const release = this.#slots.tryTake();
    if (release) return release;
    throw new RelayError(
      "busy",
      `${this.inUse} turns are running, the most this relay runs at once ${this.#where}; wait for one to end (codex_wait_reply) or interrupt one (codex_interrupt)`,
      { written: false },
    );
  }
}
