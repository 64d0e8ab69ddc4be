/**
 * Whether the shared daemon connection is still alive, without writing any
 * JSON-RPC. Codex's `app-server proxy` outlives its daemon (after `daemon
 * stop` it keeps its stdout open) and exits only when it is next written to,
 * so a dead daemon shows only on a write: a WebSocket ping is that write.
 *
 * - While the connection is in use (a turn followed, an operation in flight)
 *   a heartbeat pings it every {@linkcode HEARTBEAT_MS}, so a lost daemon is
 *   noticed within about that long.
 * - Before an operation (or a turn) starts writing on it, it is probed (one
 *   ping round trip, shared by the operations starting meanwhile): found
 *   dead, it is never written to. A connection heard from within
 *   {@linkcode FRESH_MS} (an answer, a notification, a pong) is not probed:
 *   it is as fresh as the heartbeat keeps a connection in use, and the probe
 *   was most of a call's cost (docs/reliability.md, "One call").
 *
 * A ping unanswered for {@linkcode PONG_TIMEOUT_MS} (no pong and no other
 * frame) counts as dead too.
 * @module
 */

import type { Clock, Timer } from "../../core/clock.ts";

/** The heartbeat's period while the connection is in use (one ping each, a few bytes). */
export const HEARTBEAT_MS = 300;
/**
 * How recently the connection must have been heard from for a write to skip
 * the probe: one heartbeat period.
 */
export const FRESH_MS = HEARTBEAT_MS;
/** How long a ping may go unanswered (with nothing else heard either) before the connection counts as dead. */
export const PONG_TIMEOUT_MS = 3_000;

/** Watches one connection. */
export class Liveness {
  readonly #ping: () => Promise<boolean>;
  readonly #clock: Clock;
  readonly #onDead: (why: string) => void;
  #lastHeard: number;
  #users = 0;
  #timer: Timer | undefined;
  #probing: Promise<boolean> | undefined;
  #dead = false;

  /** `ping` resolves true at its answer and false once the channel ended. */
  constructor(ping: () => Promise<boolean>, clock: Clock, onDead: (why: string) => void) {
    this.#ping = ping;
    this.#clock = clock;
    this.#onDead = onDead;
    this.#lastHeard = clock.now();
  }

  /** Something arrived on the connection. */
  heard(): void {
    this.#lastHeard = this.#clock.now();
  }

  /** Counts one more user (the heartbeat runs while there is one); returns its release. */
  use(): () => void {
    this.#users++;
    this.#arm();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#users === 0) this.#disarm();
    };
  }

  /**
   * Resolves true when the connection may be written to (heard from within
   * {@linkcode FRESH_MS}, or it answers a ping); false (and `onDead`) when it
   * is found dead.
   */
  probe(): Promise<boolean> {
    if (this.#dead) return Promise.resolve(false);
    if (this.#clock.now() - this.#lastHeard < FRESH_MS) return Promise.resolve(true);
    return this.#check();
  }

  /** Stops the heartbeat for good (the connection is closed). */
  stop(): void {
    this.#dead = true;
    this.#disarm();
  }

  #check(): Promise<boolean> {
    this.#probing ??= this.#pingOnce().finally(() => (this.#probing = undefined));
    return this.#probing;
  }

  async #pingOnce(): Promise<boolean> {
    const sent = this.#clock.now();
    const late = Promise.withResolvers<"late">();
    const timer = this.#clock.after(PONG_TIMEOUT_MS, () => late.resolve("late"));
    let answer: boolean | "late";
    try {
      answer = await Promise.race([this.#ping(), late.promise]);
    } finally {
      timer.cancel();
    }
    if (answer === true) {
      this.heard();
      return true;
    }
    // Unanswered, but other frames came meanwhile: a busy connection, not a dead one.
    if (answer === "late" && this.#lastHeard > sent) return true;
    if (!this.#dead) {
      this.#dead = true;
      this.#disarm();
      this.#onDead(
        answer === "late"
          ? `The app-server daemon did not answer a ping within ${PONG_TIMEOUT_MS / 1000} s`
          : "The app-server daemon is gone (codex app-server proxy exited when written to)",
      );
    }
    return false;
  }

  #arm(): void {
    // Stryker disable next-line ConditionalExpression: defence in depth: the timer is cancelled when the last user leaves or the connection dies, and a ping in flight is shared
    if (this.#timer || this.#dead || this.#users === 0) return;
    this.#timer = this.#clock.after(HEARTBEAT_MS, () => {
      this.#timer = undefined;
      void this.#beat();
    });
  }

  #disarm(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  async #beat(): Promise<void> {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: defence in depth: the timer is cancelled when the last user leaves or the connection dies, and a ping in flight is shared
    if (this.#dead || this.#users === 0) return;
    if (!(await this.#check())) return;
    this.#arm();
  }
}
