/**
 * The status of the matched turn as a fresh helper may report it.
 * @module
 */

import type { Turn } from "../codex/types.ts";
import type { ObservedTurnStatus } from "./schemas.ts";

/** Turn summaries looked at: the newest 50 (`thread/turns/list {limit: 50, sortDirection: "desc"}`). */
export const TURN_STATUS_WINDOW = 50;

/**
 * Returns the status of `turnId` among the first {@linkcode TURN_STATUS_WINDOW}
 * turn summaries (the newest, when listed descending), as results name it:
 * Codex's `inProgress` is `running`.
 *
 * `interrupted` with `completedAt: null` is how a turn running in another
 * process (or abandoned by a crashed holder) reads to any other: it is
 * `unverified`, never `interrupted`. A turn not in the window, or listed twice
 * with different statuses, is `unverified`.
 */
export function observedTurnStatus(turns: readonly Turn[], turnId: string): ObservedTurnStatus {
  let found: ObservedTurnStatus | undefined;
  for (const turn of turns.slice(0, TURN_STATUS_WINDOW)) {
    if (turn.id !== turnId) continue;
    const status = turn.status === "interrupted" && turn.completedAt === null
      ? "unverified"
      : turn.status === "inProgress"
      ? "running"
      : turn.status;
    if (found !== undefined && found !== status) return "unverified";
    found = status;
  }
  return found ?? "unverified";
}

/** Whether the status is final: `completed`, `failed` or `interrupted`. */
export function isTerminal(status: ObservedTurnStatus): boolean {
  return status === "completed" || status === "failed" || status === "interrupted";
}
