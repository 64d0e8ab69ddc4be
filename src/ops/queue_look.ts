/**
 * Where a message is that a read did not find among a thread's items: still
 * in the thread's queue (and whether a Codex turn runs on the thread, which
 * is what starts it next), or in neither (a clientMessageId that was never
 * queued there, or was withdrawn). Reads only `thread/queue/list` and one
 * turn summary (`thread/turns/list`); nothing is loaded or changed.
 * @module
 */

import type { Session } from "../connect/connection.ts";
import { findQueued } from "./queue_message.ts";
import { asRelayError } from "../core/errors.ts";

/** What the queue says about a message the items did not show. */
export type QueueLook =
  /** In the queue: `turnRunning` when a Codex process runs a turn on the thread now. */
  | { kind: "queued"; turnRunning: boolean }
  /** Not in the queue. */
  | { kind: "absent" };

/**
 * Looks for `clientMessageId` in the thread's queue and, when it is there,
 * whether the thread's newest turn runs: `inProgress` (seen by the process
 * that holds the thread), or `interrupted` without `completedAt` (how a turn
 * running in another process reads to a non-holder).
 *
 * @example
 * ```ts ignore
 * const look = await lookInQueue(session, threadId, "relay-1");
 * if (look.kind === "queued" && !look.turnRunning) console.error("waits for a resume");
 * ```
 */
export async function lookInQueue(
  session: Session,
  threadId: string,
  clientMessageId: string,
): Promise<QueueLook> {
  const id = await findQueued(session, threadId, clientMessageId);
  if (id === undefined) return { kind: "absent" };
  const params = { threadId, limit: 1, sortDirection: "desc" as const };
  // As the read does: a Codex that refuses itemsView "notLoaded" is asked for summaries.
  const page = await session.call("thread/turns/list", { ...params, itemsView: "notLoaded" })
    .catch((error) => {
      if (asRelayError(error).rpcCode === undefined) throw error;
      return session.call("thread/turns/list", { ...params, itemsView: "summary" });
    });
  const newest = page.data[0];
  const turnRunning = newest !== undefined &&
    (newest.status === "inProgress" ||
      (newest.status === "interrupted" && newest.completedAt === null));
  return { kind: "queued", turnRunning };
}
