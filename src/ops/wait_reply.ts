/**
 * `codex_wait_reply` as one operation on an owner {@linkcode Session}: read
 * as `codex_read_reply` does, again and again with backoff, until a final
 * answer is observed, the matched turn ends, or the wait time is up. There is
 * no polling outside a call: the loop lives and dies with its operation.
 * @module
 */

import type { Clock } from "../core/clock.ts";
import type { Session } from "../connect/connection.ts";
import { abortReason } from "../core/errors.ts";
import { readReply, type ReadReplyInput } from "./read_reply.ts";
import { buildReadResult } from "../reply/read_result.ts";
import type { ReadReplyResult } from "../reply/schemas.ts";
import { isTerminal } from "../reply/turn_status.ts";

/** Shortest and longest wait of one call, in seconds. */
export const WAIT_SECONDS = Object.freeze({ min: 1, max: 55, default: 30 });
/** Pause after the first read; it doubles after every read up to `maxMs`. */
export const WAIT_BACKOFF = Object.freeze({ initialMs: 250, maxMs: 2_000 });
/** Operation budget beyond the wait time: room for the last read. */
export const WAIT_MARGIN_MS = 4_000;

/** What `codex_wait_reply` is asked. */
export interface WaitReplyInput {
  /** The thread (a UUID). */
  threadId: string;
  /** The `clientMessageId` of the queue receipt. */
  clientMessageId: string;
  /** A cursor of an earlier result; every read of the wait starts from it. */
  cursor?: string;
  /** How long to wait, in seconds. */
  timeoutSeconds: number;
}

/** The `codex_wait_reply` result: the last read, and whether the wait time ran out. */
export interface WaitReplyResult extends ReadReplyResult {
  /** True when the wait ended because its time was up, not because it settled. */
  timedOut: boolean;
}

/** Reported after every read that did not settle the wait. */
export interface WaitProgress {
  /** Reads done so far. */
  reads: number;
  /** Time since the wait started. */
  elapsedMs: number;
  /** The wait time. */
  timeoutMs: number;
  /** The last read's result (never sent as progress text: it may carry replies). */
  last: ReadReplyResult;
}

/** How {@linkcode waitForReply} reads and paces itself. */
export interface WaitOptions {
  /** The owner's clock: pauses and the wait deadline use it. */
  clock: Clock;
  /** Called after each read that did not settle the wait, while the pause runs. */
  onProgress?: (progress: WaitProgress) => void | Promise<void>;
  /** One read; default {@linkcode readReply}. The turn runtime may swap in its own. */
  read?: (session: Session, input: ReadReplyInput) => Promise<ReadReplyResult>;
  /** Pacing; default {@linkcode WAIT_BACKOFF}. */
  backoff?: { initialMs: number; maxMs: number };
}

/**
 * Whether a read ends the wait: a final answer observed, the matched turn in
 * a terminal status (`completed`, `failed`, `interrupted` with `completedAt`),
 * an ambiguous match, or nothing observable (`unavailable`). `no_match` (the
 * message may still be queued) and an observed turn still running do not.
 */
export function isSettled(result: ReadReplyResult): boolean {
  if (result.status === "no_match") return false;
  if (result.status !== "observed") return true;
  return result.replies.length > 0 || (result.turn !== null && isTerminal(result.turn.status));
}

/**
 * Reads until {@linkcode isSettled} or until `timeoutSeconds` have passed (a
 * last read is made at the deadline), pausing 250 ms after the first read and
 * doubling up to 2 s. Every read repeats the same request (the same cursor),
 * so the result is always that of the newest read. Aborting `session.signal`
 * stops the pause at once.
 *
 * @returns The last read plus `timedOut`; `unavailable` with the abort's
 * reason when the operation is cancelled during a pause.
 */
export async function waitForReply(
  session: Session,
  input: WaitReplyInput,
  options: WaitOptions,
): Promise<WaitReplyResult> {
  const { clock } = options;
  const read = options.read ?? readReply;
  const backoff = options.backoff ?? WAIT_BACKOFF;
  const timeoutMs = input.timeoutSeconds * 1000;
  const request: ReadReplyInput = {
    threadId: input.threadId,
    clientMessageId: input.clientMessageId,
    ...(input.cursor === undefined ? {} : { cursor: input.cursor }),
  };
  const started = clock.now();
  let delay = backoff.initialMs;
  for (let reads = 1;; reads++) {
    const last = await read(session, request);
    if (isSettled(last)) return { ...last, timedOut: false };
    const left = timeoutMs - (clock.now() - started);
    if (left <= 0) return { ...last, timedOut: true };
    // Arm the pause first, so a progress listener sees it pending.
    const paused = pause(clock, Math.min(delay, left), session.signal);
    await options.onProgress?.({ reads, elapsedMs: clock.now() - started, timeoutMs, last });
    if (!(await paused)) {
      return {
        ...buildReadResult({
          threadId: input.threadId,
          clientMessageId: input.clientMessageId,
          match: { kind: "unavailable", reason: abortReason(session.signal, true).reason },
        }),
        timedOut: false,
      };
    }
    delay = Math.min(delay * 2, backoff.maxMs);
  }
}

/** Resolves true after `ms` on `clock`, or false as soon as `signal` aborts. */
function pause(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      timer.cancel();
      resolve(false);
    };
    const timer = clock.after(ms, () => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    });
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
