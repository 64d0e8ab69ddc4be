/**
 * What every backend's `operation()` and `hold()` run in: the budget (from
 * the caller's wish and the bounds), one signal (the caller's, the budget's
 * and the backend's shutdown), and the allowlist check before anything is
 * sent. The backends differ in what they open, never in these.
 * @module
 */

import { RelayError } from "../core/errors.ts";
import type { Clock } from "../core/clock.ts";
import type { Logger } from "../core/log.ts";
import { Budget } from "./budget.ts";
import { anySignal } from "./_shared.ts";
import type { ConnectionLimits } from "./connection.ts";
import type { Method } from "../codex/methods.ts";

/** An operation's budget: the default `operationMs`, or what it asks for up to `maxOperationMs`. */
export function operationBudgetMs(limits: Readonly<ConnectionLimits>, askedMs?: number): number {
  return askedMs === undefined ? limits.operationMs : Math.min(askedMs, limits.maxOperationMs);
}

/** The budget of opening a held connection: what is asked, at most one operation's. */
export function holdBudgetMs(limits: Readonly<ConnectionLimits>, askedMs?: number): number {
  return Math.min(askedMs ?? limits.operationMs, limits.operationMs);
}

/** One operation's (or one opening's) budget and the signal its work runs under. */
export class OperationFrame {
  readonly #budget: Budget;
  /** Aborted by the caller, by the spent budget (its error) or by the backend's shutdown. */
  readonly signal: AbortSignal;

  /**
   * Starts a budget of `budgetMs` on `clock` now, under the caller's `signal`
   * and the backend's `shutdown`; `spent` is the error once the budget is
   * spent (default: the operation's timeout).
   */
  constructor(
    budgetMs: number,
    clock: Clock,
    signals: { caller?: AbortSignal; shutdown: AbortSignal },
    spent?: RelayError,
  ) {
    this.#budget = new Budget(budgetMs, clock, spent);
    this.signal = anySignal([signals.caller, this.#budget.signal, signals.shutdown]);
  }

  /** Whether the budget itself ran out (not the caller, not a shutdown). */
  get spent(): boolean {
    return this.#budget.signal.aborted;
  }

  /** Milliseconds left of the budget. */
  remainingMs(): number {
    return this.#budget.remainingMs();
  }

  /** Stops the budget's timer (the operation or the opening is over). */
  end(): void {
    this.#budget.cancel();
  }
}

/** Refuses `method` (`not_allowed`, nothing written) unless `allow` has it. */
export function checkAllowed(allow: ReadonlySet<Method>, method: Method, log: Logger): void {
  if (!allow.has(method)) {
    log.warn("refused", { method });
    // Stryker disable next-line ObjectLiteral: written: false is RelayError's default
    throw new RelayError("not_allowed", `${method} is not allowed at this capability level`, {
      written: false,
    });
  }
}
