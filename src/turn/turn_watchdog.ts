/**
 * A turn runtime's two clocks: the stall budget (silence, reset by every
 * frame; longer while an MCP tool call runs; paused while a human is asked)
 * and the backstop (the turn's whole length). Either running out calls
 * `onStall`; the runtime interrupts the turn.
 * @module
 */

import type { Clock, Timer } from "../core/clock.ts";

/** A runtime's bounds: the watchdog's, and the grace of an interrupt. */
export interface TurnLimits {
  /** Silence after which a turn counts as stalled. */
  stallMs: number;
  /** Silence allowed while an MCP tool call is in flight. */
  toolCallStallMs: number;
  /** The longest a turn may run under the relay. */
  backstopMs: number;
  /** How long to wait for Codex to confirm an interrupt before reaping. */
  interruptGraceMs: number;
}

/** Default bounds. */
export const DEFAULT_TURN_LIMITS: Readonly<TurnLimits> = Object.freeze({
  stallMs: 120_000,
  toolCallStallMs: 600_000,
  backstopMs: 30 * 60_000,
  interruptGraceMs: 10_000,
});

/** Why the watchdog fired. */
export type StallWhy = "stalled" | "backstop";

/** The stall timer and the backstop of one runtime. */
export class TurnWatchdog {
  readonly #clock: Clock;
  readonly #limits: TurnLimits;
  readonly #onStall: (why: StallWhy) => void;
  readonly #toolCalls = new Set<string>();
  #waitingOnHuman = false;
  #enabled = false;
  #stallTimer: Timer | undefined;
  #backstop: Timer | undefined;

  constructor(clock: Clock, limits: TurnLimits, onStall: (why: StallWhy) => void) {
    this.#clock = clock;
    this.#limits = limits;
    this.#onStall = onStall;
  }

  /** Starts the backstop (when `enabled`; a turn the relay did not start has none). */
  start(enabled: boolean): void {
    this.#enabled = enabled;
    if (!enabled) return;
    this.#backstop = this.#clock.after(this.#limits.backstopMs, () => this.#onStall("backstop"));
  }

  /** Restarts the stall budget when `running` (the turn is followed and not over); else stops it. */
  arm(running: boolean): void {
    this.#stallTimer?.cancel();
    this.#stallTimer = undefined;
    if (!running || !this.#enabled || this.#waitingOnHuman) return;
    const budget = this.#toolCalls.size > 0 ? this.#limits.toolCallStallMs : this.#limits.stallMs;
    this.#stallTimer = this.#clock.after(budget, () => this.#onStall("stalled"));
  }

  /** An MCP tool call started or ended (a longer silence is allowed while one runs). */
  toolCall(id: string, completed: boolean): void {
    if (completed) this.#toolCalls.delete(id);
    else this.#toolCalls.add(id);
  }

  /** Whether a human is being asked; true when that changed. */
  waitingOnHuman(waiting: boolean): boolean {
    if (this.#waitingOnHuman === waiting) return false;
    this.#waitingOnHuman = waiting;
    return true;
  }

  /** Stops both clocks. */
  stop(): void {
    this.#stallTimer?.cancel();
    this.#backstop?.cancel();
    this.#stallTimer = undefined;
    this.#backstop = undefined;
  }
}
