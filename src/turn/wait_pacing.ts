/**
 * The pure pieces of `codex_wait_reply`'s promise, which the wait engine
 * (`src/turn/wait_engine.ts`) keeps: its bounds, when a read ends a wait
 * ({@linkcode isSettled}, with the `not_found` confirmation window), the
 * pacing of its reads ({@linkcode Pacing}: paced so the lag stays short, a
 * slow fallback where a notification of the thread wakes it, {@linkcode Wake}),
 * and the pause between reads. There is no polling outside a call: the
 * engine's loop lives and dies with its operation.
 * @module
 */

import type { Clock } from "../core/clock.ts";
import type { ReadReplyResult } from "../reply/schemas.ts";
import { isTerminal } from "../reply/turn_status.ts";

/** Shortest and longest wait of one call, in seconds. */
export const WAIT_SECONDS = Object.freeze({ min: 1, max: 55, default: 30 });
/**
 * Pacing of a wait that nothing wakes (spawn mode): the pause after the first
 * read, doubling after every read up to `maxMs`. At most 4 reads a second: a
 * read is 1 to 3 RPCs of ~1-2 ms each on the wait's open helper, so a wait
 * costs Codex at most ~4 x 3 ms = ~12 ms of work per second, and the lag from
 * a final answer being stored to the wait returning is at most one pause plus
 * one read (~125 ms median).
 */
export const WAIT_BACKOFF = Object.freeze({ initialMs: 100, maxMs: 250 });
/**
 * Pacing of a wait on a watched thread (daemon mode): notifications of the
 * thread wake it at once, so these reads are only a fallback (a notification
 * the daemon did not send). The pause restarts from `initialMs` after a wake.
 */
export const WATCHED_BACKOFF = Object.freeze({ initialMs: 250, maxMs: 2_000 });
/**
 * The notifications of a watched thread that wake a wait: a status change
 * (every daemon connection gets these for every thread) and, where the
 * connection is subscribed, a turn's start and end and a stored item (not the
 * streaming deltas: a final answer is read once its item is stored).
 */
export const WAKING: ReadonlySet<string> = new Set([
  "thread/status/changed",
  "turn/started",
  "turn/completed",
  "item/completed",
]);
/** Operation budget beyond the wait time: room for the last read. */
export const WAIT_MARGIN_MS = 4_000;

/**
 * How long (ms) a wait's reads must find a message in neither the queue nor
 * the thread before `not_found` ends the wait: Codex takes a message from the
 * queue a moment before the thread records its user item (real Codex 0.169,
 * daemon mode: a few ms, more under load), and a read in between finds it in
 * neither place.
 */
export const NOT_FOUND_CONFIRM_MS = 500;

/**
 * Whether a read ends the wait: a final answer observed, the matched turn in
 * a terminal status (`completed`, `failed`, `interrupted` with `completedAt`),
 * an ambiguous match, a message in neither the queue nor the thread
 * (`not_found`) once the reads have said so for `notFoundForMs` ≥
 * {@linkcode NOT_FOUND_CONFIRM_MS}, or nothing observable (`unavailable`).
 * `no_match` (in older items) and an observed turn still running do not; nor
 * does `queued`, unless no turn runs on the thread and nothing `watched`
 * could start it (spawn mode: only a Codex process resuming the thread starts
 * it, which waiting does not bring about; a daemon may start it at once).
 *
 * @example
 * ```ts ignore
 * isSettled(result, true, 0); // a first not_found: false, Codex may be taking it
 * ```
 */
export function isSettled(
  result: ReadReplyResult,
  watched: boolean,
  notFoundForMs: number,
): boolean {
  if (result.status === "no_match") return false;
  if (result.status === "not_found") return notFoundForMs >= NOT_FOUND_CONFIRM_MS;
  if (result.status === "queued") return !watched && result.turnRunning === false;
  if (result.status !== "observed") return true;
  // Stryker disable next-line ConditionalExpression: an observed read always carries its turn (buildReadResult): the check only narrows the type
  return result.replies.length > 0 || (result.turn !== null && isTerminal(result.turn.status));
}

/**
 * Since when a wait's reads have said `not_found` in a row: `since` (or `now`,
 * at the first) after a `not_found` read, `undefined` after any other.
 *
 * @example
 * ```ts ignore
 * let since = notFoundSince(read, undefined, clock.now());
 * ```
 */
export function notFoundSince(
  result: ReadReplyResult,
  since: number | undefined,
  now: number,
): number | undefined {
  return result.status === "not_found" ? (since ?? now) : undefined;
}

/**
 * The pacing of a wait's reads, one record for every form of the wait: the
 * pause after a read starts at `initialMs` and doubles after every read up
 * to `maxMs`; a wake restarts it. On a watched session the pauses are
 * {@linkcode WATCHED_BACKOFF} (a wake is the fast path), except after a read
 * that saw a turn running elsewhere (`unverified`: no wake will come), which
 * is paced with {@linkcode WAIT_BACKOFF}; a pacing given by the caller is used
 * as is.
 *
 * @example
 * ```ts ignore
 * const pacing = new Pacing(false);
 * pacing.after([]); // 100, then 200, 250, 250, ...
 * ```
 */
export class Pacing {
  readonly #watched: boolean;
  readonly #fixed: { initialMs: number; maxMs: number } | undefined;
  #step = 0;

  /** `watched`: a notification of the thread wakes the wait; `fixed`: the caller's pacing. */
  constructor(watched: boolean, fixed?: { initialMs: number; maxMs: number }) {
    this.#watched = watched;
    this.#fixed = fixed;
  }

  /** A wake came: the next pause is the shortest again. */
  restart(): void {
    this.#step = 0;
  }

  /** The pause after a read of `reads` (each message's last read), in ms. */
  after(reads: readonly (ReadReplyResult | undefined)[]): number {
    // Only an observed read carries a turn (buildReadResult in reply/read_result.ts).
    const elsewhere = reads.some((r) => r?.turn?.status === "unverified");
    const pace = this.#fixed ?? (this.#watched && !elsewhere ? WATCHED_BACKOFF : WAIT_BACKOFF);
    const ms = Math.min(pace.initialMs * 2 ** this.#step, pace.maxMs);
    this.#step = Math.min(this.#step + 1, 16);
    return ms;
  }
}

/** Counts notifications and wakes the one pause waiting on them. */
export class Wake {
  /** Pokes so far. */
  count = 0;
  #waiter: (() => void) | undefined;

  /** Counts one notification and ends the pause waiting on it. */
  poke(): void {
    this.count++;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  /** Calls `fn` on the next poke (replacing an earlier one); returns a canceller. */
  next(fn: () => void): () => void {
    this.#waiter = fn;
    return () => {
      if (this.#waiter === fn) this.#waiter = undefined;
    };
  }
}

/**
 * Resolves true after `ms` on `clock` or at the next `wake`, or false as soon
 * as `signal` aborts.
 */
export function pause(
  clock: Clock,
  ms: number,
  signal: AbortSignal,
  wake: Wake,
): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const finish = (value: boolean) => {
      timer.cancel();
      stopWake();
      signal.removeEventListener("abort", onAbort);
      resolve(value);
    };
    const onAbort = () => finish(false);
    const timer = clock.after(ms, () => finish(true));
    const stopWake = wake.next(() => finish(true));
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: a signal aborts once, and the pause removes its listener whichever way it ends
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
