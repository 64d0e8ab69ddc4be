/**
 * Asking Codex to interrupt a turn: which turns to name, and sending
 * `turn/interrupt` by them. What is left unconfirmed is said in words: the
 * runtime then stops following the turn (which may run on until its
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
 * import assert from "assert";
 * assert.deepEqual(turnsToInterrupt({ turnId: "R", currentTurnId: "R2", innerTurnId: "R2" }, true), ["R", "R2"]);
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

/**
 * Sends `turn/interrupt` for the first of `turnIds` that Codex accepts (a
 * refused id: the next one), each call bounded by `until` (clock ms).
 * Resolves undefined once one is accepted (Codex then reports the end with
 * `turn/completed`), else with why the interrupt is unconfirmed.
 */
export async function sendInterrupt(
  conn: HeldConnection,
  target: { threadId: string; turnIds: readonly string[] },
  until: number,
  { clock, log }: { clock: Clock; log: Logger },
): Promise<string | undefined> {
  for (const [i, turnId] of target.turnIds.entries()) {
    try {
      await conn.call("turn/interrupt", { threadId: target.threadId, turnId }, {
        timeoutMs: Math.max(1, until - clock.now()),
      });
      return undefined;
    } catch (error) {
      const refused = error instanceof RelayError && error.rpcCode !== undefined;
      if (refused && i + 1 < target.turnIds.length) continue; // Refused by this id: the next one.
      // Refused, unanswered or the helper failed: no turn/completed is coming.
      const reason = error instanceof RelayError ? error.reason : "unknown";
      log.warn("interrupt failed", { reason });
      return `Codex did not confirm the interrupt (${reason}); codex-relay stopped following the turn, which may run on until its app-server ends`;
    }
  }
  return undefined;
}

/** Why an interrupt Codex accepted is unconfirmed: the turn's end did not come within the grace. */
export const END_NOT_REPORTED =
  "Codex accepted the interrupt but did not report the turn's end in time; codex-relay stopped following the turn, which may run on until its app-server ends";
