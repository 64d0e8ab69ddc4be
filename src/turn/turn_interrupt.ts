/**
 * Asking Codex to interrupt a turn and waiting for it to report the end,
 * within one grace period in all. What is left unconfirmed is said in words:
 * the runtime then stops following the turn (which may run on until its
 * app-server ends: at once for a turn alone in its app-server, never in a daemon).
 * @module
 */

import { RelayError } from "../core/errors.ts";
import type { Clock } from "../core/clock.ts";
import type { Logger } from "../core/log.ts";
import type { HeldConnection } from "../connect/connection.ts";

/**
 * The turns an interrupt asks for, in order, as far as they are known. On a
 * shared connection the current turn may be someone else's, and a review's
 * own turn is R: only ever the run's own turn there (`ownOnly`), else the
 * turn running now. A review's inner turn R' comes after R (Codex 0.171
 * interrupts a review by R, 0.169 only by R').
 *
 * @example
 * ```ts
 * turnsToInterrupt({ turnId: "R", currentTurnId: "R2", innerTurnId: "R2" }, true); // ["R", "R2"]
 * ```
 */
export function turnsToInterrupt(
  seen: { turnId: string | null; currentTurnId: string | null; innerTurnId: string | null },
  ownOnly: boolean,
): string[] {
  const first = ownOnly ? seen.turnId : seen.currentTurnId ?? seen.turnId;
  if (first === null) return [];
  const inner = ownOnly ? seen.innerTurnId : null;
  return inner && inner !== first ? [first, inner] : [first];
}

/** What an interrupt needs of its runtime. */
export interface InterruptTarget {
  conn: HeldConnection;
  threadId: string;
  /** The ids to try, in order, until Codex accepts one (a review: R, then its inner turn R'). */
  turnIds: readonly string[];
  clock: Clock;
  log: Logger;
  graceMs: number;
  /** Whether the turn has ended or the connection is gone (no end is coming then). */
  settled(): boolean;
  /** Resolves at the runtime's next change or at `untilMs`. */
  nextChange(untilMs: number): Promise<void>;
}

/**
 * Sends `turn/interrupt` and waits for the turn's end. Resolves undefined
 * when it ended (or the connection went), else with why it is unconfirmed.
 */
export async function requestInterrupt(t: InterruptTarget): Promise<string | undefined> {
  const until = t.clock.now() + t.graceMs;
  for (const [i, turnId] of t.turnIds.entries()) {
    try {
      await t.conn.call("turn/interrupt", { threadId: t.threadId, turnId }, {
        timeoutMs: Math.max(1, until - t.clock.now()),
      });
      break;
    } catch (error) {
      const refused = error instanceof RelayError && error.rpcCode !== undefined;
      if (refused && i + 1 < t.turnIds.length) continue; // Refused by this id: the next one.
      // Refused, unanswered or the helper failed: no turn/completed is coming.
      const reason = error instanceof RelayError ? error.reason : "unknown";
      t.log.warn("interrupt failed", { reason });
      return `Codex did not confirm the interrupt (${reason}); codex-relay stopped following the turn, which may run on until its app-server ends`;
    }
  }
  // Accepted: Codex reports the end with turn/completed.
  while (!t.settled() && t.clock.now() < until) await t.nextChange(until);
  return t.settled()
    ? undefined
    : "Codex accepted the interrupt but did not report the turn's end in time; codex-relay stopped following the turn, which may run on until its app-server ends";
}
