/**
 * The pure part of `codex_wait_reply` on several messages: the bounds of the
 * list, when `until` is reached, the merged result (in the order given, with
 * how many are final) and the one-line progress summary. No I/O.
 * @module
 */

/** How many messages one wait may follow. */
export const WAIT_MESSAGES = Object.freeze({ min: 1, max: 16 });

/** When a wait on several messages returns: at the first final one, or the last. */
export const WAIT_UNTIL = ["any", "all"] as const;

/** `any` or `all`. */
export type WaitUntil = typeof WAIT_UNTIL[number];

/** One message of the list, as given. */
export interface WaitMessageRef {
  /** The thread (an id or a name, as given). */
  threadId: string;
  /** The message's `clientMessageId`. */
  clientMessageId: string;
}

/**
 * The index of the first message that repeats an earlier one (same
 * `threadId` and `clientMessageId`), or -1.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const same = { threadId: "a", clientMessageId: "1" };
 * assert.equal(duplicateAt([same, { ...same }]), 1);
 * ```
 */
export function duplicateAt(messages: readonly WaitMessageRef[]): number {
  const seen = new Set<string>();
  for (const [i, m] of messages.entries()) {
    const key = JSON.stringify([m.threadId, m.clientMessageId]);
    if (seen.has(key)) return i;
    seen.add(key);
  }
  return -1;
}

/**
 * Whether `done` final messages out of `total` end a wait `until` any (at
 * least one) or all (every one).
 */
export function untilReached(until: WaitUntil, done: number, total: number): boolean {
  return until === "any" ? done > 0 : done >= total;
}

/** A per-message result of a wait: final unless `timedOut`. */
export interface PerMessage {
  /** True when the call returned before this message reached a final state. */
  timedOut: boolean;
}

/** The result of a wait on several messages. */
export interface WaitSetResult<R extends PerMessage> {
  /** As asked (default `any`). */
  until: WaitUntil;
  /** How many of `messages` are final. */
  done: number;
  /** One result per message, in the order given. */
  messages: R[];
}

/** Merges the per-message results (in the order given) into the wait's result. */
export function mergeResults<R extends PerMessage>(
  until: WaitUntil,
  messages: readonly R[],
): WaitSetResult<R> {
  return { until, done: messages.filter((m) => !m.timedOut).length, messages: [...messages] };
}

/** What the progress summary says. */
export interface WaitSummary {
  done: number;
  total: number;
  /** Messages whose turn waits for an answer from the user (an approval, a question). */
  waiting: number;
}

/**
 * The progress text of a wait on several messages.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(summaryText({ done: 2, total: 5, waiting: 1 }), "2 of 5 done; 1 waiting for approval");
 * ```
 */
export function summaryText(s: WaitSummary): string {
  const waiting = s.waiting > 0 ? `; ${s.waiting} waiting for approval` : "";
  return `${s.done} of ${s.total} done${waiting}`;
}
