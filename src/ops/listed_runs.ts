/**
 * The runs `codex_list_threads` shows at the turn-start level: this relay's
 * (from the turn registry) and, on a backend whose turns outlive the relay
 * (the daemon), the running turns another codex-relay process (an earlier
 * one) started there (`otherRelay: true`), found within the list's own operation: only on threads of the
 * listed page that the daemon reports `active` (loaded, a turn running;
 * nothing is loaded or subscribed), at most {@linkcode OTHER_RELAY_PROBES} of
 * them, one `thread/turns/list` summary page of one turn each, whose user
 * message carries a codex_run id ({@linkcode isRunId}).
 * @module
 */

import type { Session } from "../connect/connection.ts";
import type { Thread } from "../codex/types.ts";
import type { ListedRun } from "../reply/schemas.ts";
import { isRunId } from "../reply/run_id.ts";

/** The most `active` threads of one list page asked for their running turn. */
export const OTHER_RELAY_PROBES = 8;

/** What the scan leaves out or marks. */
export interface OtherRelayScan {
  /** Threads this relay runs a turn on (the registry lists those). */
  running: ReadonlySet<string>;
  /** Whether this process queued the message (then it is not another process's). */
  queuedHere(threadId: string, clientMessageId: string): boolean;
}

/**
 * The running codex_run turns on the `active` threads of a `thread/list`
 * page that this relay does not follow. A read that fails ends the scan
 * (the list itself still answers).
 */
export async function otherRelayRuns(
  s: Session,
  page: readonly Thread[],
  scan: OtherRelayScan,
): Promise<ListedRun[]> {
  const out: ListedRun[] = [];
  const candidates = page
    .filter((thread) => thread.status === "active" && !scan.running.has(thread.id))
    .slice(0, OTHER_RELAY_PROBES);
  for (const thread of candidates) {
    let turn;
    try {
      [turn] = (await s.call("thread/turns/list", {
        threadId: thread.id,
        limit: 1,
        sortDirection: "desc",
        itemsView: "summary",
      })).data;
    } catch {
      break;
    }
    const id = turn?.status === "inProgress" ? turn.clientIds?.find(isRunId) : undefined;
    if (id === undefined) continue;
    const { activeFlags: flags } = thread;
    const waiting = flags.includes("waitingOnApproval") || flags.includes("waitingOnUserInput");
    out.push({
      threadId: thread.id,
      clientMessageId: id,
      state: waiting ? "waiting_for_approval" : "running",
      startedAt: typeof turn!.startedAt === "number"
        ? new Date(turn!.startedAt * 1000).toISOString()
        : null,
      ...(scan.queuedHere(thread.id, id) ? {} : { otherRelay: true as const }),
    });
  }
  return out;
}
