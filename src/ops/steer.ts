/**
 * `codex_steer`'s call: adds input to a running turn (`turn/steer`, with the
 * turn's id as `expectedTurnId` and a new `clientUserMessageId`), and what
 * Codex's refusals mean (docs/codex-protocol.md, "Steering a running turn").
 * It never falls back to `turn/start` (which would start a new turn).
 * @module
 */

import { asRelayError, type ReasonCode } from "../core/errors.ts";
import type { Session } from "../connect/connection.ts";
import type { ImageInput } from "../codex/methods.ts";

/** How a steer went. */
export type SteerOutcome =
  | { status: "steered"; turnId: string }
  | { status: "not_running" | "not_steerable" | "turn_changed"; message: string }
  | { status: "unknown" | "unavailable"; message: string; reason: ReasonCode };

/** The turn kind Codex names when it refuses to steer (`activeTurnNotSteerable.turnKind`). */
function turnKind(message: string): string {
  const kind = /cannot steer an? (\w+) turn/.exec(message)?.[1];
  return kind ?? "this kind of";
}

/**
 * Sends `turn/steer`; Codex's refusals become outcomes: another turn runs now
 * (`turn_changed`), none runs (`not_running`), a review (or another kind Codex
 * does not steer: `not_steerable`, the kind named).
 *
 * @example
 * ```ts ignore
 * await steerTurn(session, { threadId, expectedTurnId, clientMessageId, text: "also check x" });
 * ```
 */
export async function steerTurn(
  session: Session,
  steer: {
    threadId: string;
    expectedTurnId: string;
    clientMessageId: string;
    text: string;
    images?: ImageInput[];
  },
): Promise<SteerOutcome> {
  try {
    const turnId = await session.call("turn/steer", {
      threadId: steer.threadId,
      expectedTurnId: steer.expectedTurnId,
      clientUserMessageId: steer.clientMessageId,
      input: [{ type: "text", text: steer.text, text_elements: [] }, ...(steer.images ?? [])],
    });
    return { status: "steered", turnId };
  } catch (error) {
    const e = asRelayError(error);
    if (e.rpcCode === undefined) {
      // Not answered: the input may have reached the turn.
      return {
        status: e.written ? "unknown" : "unavailable",
        reason: e.reason,
        message: e.message,
      };
    }
    if (/^expected active turn id/.test(e.message)) {
      return {
        status: "turn_changed",
        message: `The turn this relay ran ended and another one runs now (Codex: ${e.message})`,
      };
    }
    if (/no active turn/.test(e.message)) {
      return { status: "not_running", message: "The turn has ended: nothing runs to steer" };
    }
    if (/cannot steer/.test(e.message)) {
      return {
        status: "not_steerable",
        message: `Codex cannot steer ${turnKind(e.message)} turn (Codex: ${e.message})`,
      };
    }
    return { status: "unavailable", reason: e.reason, message: e.message };
  }
}
