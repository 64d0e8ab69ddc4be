/**
 * Queueing a message into a thread's Codex queue, with an honest receipt: it
 * never sends a message twice.
 * @module
 */

import { asRelayError, RelayError } from "../core/errors.ts";
import type { Receipt } from "../reply/schemas.ts";
import { MalformedResult } from "../codex/methods.ts";
import type { QueuedSubmission, QueueListPage } from "../codex/types.ts";
import type { Session } from "../connect/connection.ts";
import { resolveThread } from "./resolve_thread.ts";

/** Pages of `thread/queue/list` searched when confirming an unknown receipt. */
const QUEUE_PAGES = 5;

/** Looks for the submission in the thread's queue (`thread/queue/list`); its id, if listed. */
export async function findQueued(
  s: Session,
  threadId: string,
  clientMessageId: string,
): Promise<string | undefined> {
  let cursor: string | null = null;
  for (let page = 0; page < QUEUE_PAGES; page++) {
    const params = cursor ? { threadId, cursor } : { threadId };
    const list: QueueListPage = await s.call("thread/queue/list", params);
    const hit = list.data.find((q) => q.clientUserMessageId === clientMessageId);
    if (hit) return hit.id;
    cursor = list.nextCursor;
    if (!cursor) return undefined;
  }
  return undefined;
}

type Outcome = Omit<Receipt, "clientMessageId" | "threadId">;

/**
 * Sends `thread/queue/add` once. Resolves with the `queued` outcome on a
 * matching acknowledgement; otherwise with the error, whose `written` is false
 * exactly when the message was certainly not stored.
 */
async function addToQueue(
  s: Session,
  threadId: string,
  text: string,
  clientMessageId: string,
): Promise<Outcome | RelayError> {
  let submission: QueuedSubmission;
  try {
    submission = await s.call("thread/queue/add", {
      threadId,
      clientUserMessageId: clientMessageId,
      input: [{ type: "text", text, text_elements: [] }],
    });
  } catch (error) {
    const e = asRelayError(error);
    // Answered, but not as expected: Codex may have stored it.
    if (error instanceof MalformedResult) {
      return new RelayError(e.reason, e.message, { written: true });
    }
    // Refused before the frame was written, or answered with an error: not stored.
    if (!e.written || e.rpcCode !== undefined) {
      return new RelayError(e.reason, e.message, { rpcCode: e.rpcCode });
    }
    return e;
  }
  if (submission.clientUserMessageId === clientMessageId) {
    return {
      status: "queued",
      queuedSubmissionId: submission.id,
      confirmedBy: "acknowledgement",
    };
  }
  return new RelayError("protocol_error", "The acknowledgement names another message", {
    written: true,
  });
}

/**
 * Queues `text` into the thread `ref` within one operation and returns the
 * receipt. `queued` only on a matching acknowledgement (or when the queue
 * lists the id after an unknown outcome); `not_sent` only when certainly not
 * stored; `unknown` otherwise.
 */
export async function queueMessage(
  s: Session,
  ref: string,
  text: string,
  clientMessageId: string = crypto.randomUUID(),
): Promise<Receipt> {
  let threadId = ref;
  const receipt = (r: Outcome): Receipt => ({
    ...r,
    clientMessageId,
    threadId,
  });
  const resolved = await resolveThread(s, ref);
  if (resolved instanceof RelayError) {
    return receipt({ status: "not_sent", reason: resolved.reason, message: resolved.message });
  }
  threadId = resolved;
  const outcome = await addToQueue(s, threadId, text, clientMessageId);
  if (!(outcome instanceof RelayError)) return receipt(outcome);
  const failure = outcome;
  if (!failure.written) {
    return receipt({ status: "not_sent", reason: failure.reason, message: failure.message });
  }
  return await confirmUnknown(
    s,
    receipt({ status: "unknown", reason: failure.reason, message: failure.message }),
  );
}

/**
 * An `unknown` receipt's message may have been stored. It is never sent
 * again: this looks for it in the thread's queue on `s` and returns the
 * receipt upgraded to `queued` when listed, else unchanged (also when the
 * check fails, or the call was cancelled).
 */
export async function confirmUnknown(s: Session, receipt: Receipt): Promise<Receipt> {
  if (receipt.status !== "unknown" || receipt.reason === "cancelled" || s.signal.aborted) {
    return receipt;
  }
  try {
    const id = await findQueued(s, receipt.threadId, receipt.clientMessageId);
    if (!id) return receipt;
    return {
      status: "queued",
      clientMessageId: receipt.clientMessageId,
      threadId: receipt.threadId,
      queuedSubmissionId: id,
      confirmedBy: "queue_list",
    };
  } catch {
    return receipt; // The check failed too: the outcome stays unknown.
  }
}
