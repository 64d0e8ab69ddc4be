/**
 * Taking back a queued message (`codex_withdraw_message`): find it in the
 * thread's queue by its `clientMessageId` and delete it, with an honest
 * receipt. Only a message this relay process queued is deleted; a listed
 * message of anyone else (the user's own, another client's) is `not_found`
 * with reason `not_queued_here`. A delete whose answer was lost is `unknown`
 * and never retried.
 * @module
 */

import { MalformedResult } from "../codex/methods.ts";
import { asRelayError, RelayError } from "../core/errors.ts";
import type { WithdrawResult } from "../reply/schemas.ts";
import type { Session } from "../connect/connection.ts";
import { matchUserItem, SEARCH_PAGE_LIMIT } from "../reply/match_user_item.ts";
import { findQueued } from "./queue_message.ts";
import { resolveThread } from "./resolve_thread.ts";
import type { QueuedHere } from "./queued_here.ts";

/** What withdrawing may look at. */
export interface WithdrawOptions {
  /** Whether the thread's items may be read (reply-read level): tells `already_taken` apart. */
  readItems: boolean;
  /** The messages this relay process queued: the only ones it deletes. */
  queuedHere: QueuedHere;
}

/** Why a listed message that this relay did not queue is left alone. */
export const NOT_QUEUED_HERE =
  "It is in the thread's queue, but codex-relay did not queue it (since it started, through codex_queue_message or codex_run): it withdraws only its own messages, so the delete was not sent";

/**
 * Withdraws the message `clientMessageId` from the queue of the thread `ref`
 * (a UUID or a unique exact name) within one operation: `thread/queue/list`,
 * then `thread/queue/delete {threadId, queuedSubmissionId}` when listed.
 */
export async function withdrawMessage(
  s: Session,
  ref: string,
  clientMessageId: string,
  options: WithdrawOptions,
): Promise<WithdrawResult> {
  let threadId = ref;
  const result = (status: WithdrawResult["status"], more: Partial<WithdrawResult> = {}) => ({
    status,
    ...more,
    threadId,
    clientMessageId,
  });
  const resolved = await resolveThread(s, ref);
  if (resolved instanceof RelayError) {
    return result("unavailable", { reason: resolved.reason, message: resolved.message });
  }
  threadId = resolved;
  let submissionId: string | undefined;
  try {
    submissionId = await findQueued(s, threadId, clientMessageId);
  } catch (error) {
    const e = asRelayError(error);
    return result("unavailable", { reason: e.reason, message: e.message });
  }
  if (submissionId !== undefined && !options.queuedHere.has(threadId, clientMessageId)) {
    return result("not_found", { reason: "not_queued_here", message: NOT_QUEUED_HERE });
  }
  if (submissionId !== undefined) {
    let deleted: boolean;
    try {
      deleted =
        (await s.call("thread/queue/delete", { threadId, queuedSubmissionId: submissionId }))
          .deleted;
    } catch (error) {
      const e = asRelayError(error);
      // A malformed answer came from Codex: the delete reached it, whatever it did.
      const reached = e.written || error instanceof MalformedResult;
      if (!reached || e.rpcCode !== undefined) {
        return result("unavailable", { reason: e.reason, message: e.message });
      }
      return result("unknown", {
        reason: e.reason,
        message: error instanceof MalformedResult
          ? "The delete reached Codex but its answer could not be read, so the message may or may not still be queued. It was not sent again"
          : "The delete was sent but its answer was lost, so the message may or may not still be queued. It was not sent again",
      });
    }
    if (deleted) return result("withdrawn");
    // Listed a moment ago, gone now: Codex took it (or another client deleted it).
  }
  return await notQueued(s, threadId, clientMessageId, options, result);
}

/** The message is not in the queue: taken by a turn, or never queued (when items can be read). */
async function notQueued(
  s: Session,
  threadId: string,
  clientMessageId: string,
  options: WithdrawOptions,
  result: (status: WithdrawResult["status"], more?: Partial<WithdrawResult>) => WithdrawResult,
): Promise<WithdrawResult> {
  if (!options.readItems) {
    return result("not_found", {
      message:
        "It is not in the thread's queue: Codex already took it, or it was never queued there. Telling these apart needs --allow-reply-read",
    });
  }
  try {
    const page = await s.call("thread/items/list", {
      threadId,
      sortDirection: "desc",
      limit: SEARCH_PAGE_LIMIT,
    });
    const found = matchUserItem(page.data, clientMessageId);
    if (found.kind !== "no_match") {
      return result("already_taken", {
        message: "Codex already took it: its turn started, so it can no longer be withdrawn",
      });
    }
    return result("not_found", {
      message: page.nextCursor === null
        ? "It is neither in the thread's queue nor among its items"
        : `It is neither in the thread's queue nor among its newest ${SEARCH_PAGE_LIMIT} items`,
    });
  } catch (error) {
    const e = asRelayError(error);
    return result("not_found", {
      reason: e.reason,
      message:
        `It is not in the thread's queue; whether Codex already took it could not be read (${e.reason})`,
    });
  }
}
