/**
 * `codex_queue_message`: stores a message in a thread's Codex queue and
 * returns an honest receipt. It never replays a message.
 * @module
 */

import { z } from "zod";
import { asRelayError, RelayError } from "../../core/errors.ts";
import { parseQueueAdd, parseQueueList, parseThreadList } from "../../codex/validate.ts";
import type { Session } from "../../connect/connection.ts";
import { isUuid, messageText, reasonSchema, threadRef } from "../schemas.ts";
import type { Tool } from "../tool.ts";

const input = z.strictObject({
  threadId: threadRef.describe(
    "The thread's id (UUID), or its exact name if exactly one thread has it",
  ),
  text: messageText,
});

/** The receipt. */
export const receiptSchema = z.object({
  status: z.enum(["queued", "not_sent", "unknown"]),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  clientMessageId: z.string().describe("The id to read the reply with (codex_read_reply)"),
  threadId: z.string(),
  queuedSubmissionId: z.string().optional(),
  confirmedBy: z.enum(["acknowledgement", "queue_list"]).optional(),
});

/** A queue receipt. */
export type Receipt = z.output<typeof receiptSchema>;

/** Name lookup bound: pages of `thread/list` searched for an exact name. */
const NAME_PAGES = 20;
const PAGE = 100;
/** Pages of `thread/queue/list` searched when confirming an unknown receipt. */
const QUEUE_PAGES = 5;

/** Resolves an exact thread name to one thread id, or explains why not. */
async function resolveName(s: Session, name: string): Promise<string | RelayError> {
  const matches: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < NAME_PAGES; page++) {
    const params: Record<string, unknown> = cursor ? { limit: PAGE, cursor } : { limit: PAGE };
    const result = parseThreadList(await s.call("thread/list", params));
    for (const t of result.data) if (t.name === name) matches.push(t.id);
    if (matches.length > 1) break;
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) {
    return new RelayError("ambiguous_name", "Several threads have this name; give the thread's id");
  }
  const scope = cursor ? ` in the ${NAME_PAGES * PAGE} most recent threads` : "";
  return new RelayError(
    "thread_not_found",
    `No thread has exactly this name${scope}; give the thread's id`,
  );
}

/** Looks for the submission in the thread's queue (`thread/queue/list`); its id, if listed. */
async function findQueued(
  s: Session,
  threadId: string,
  clientMessageId: string,
): Promise<string | undefined> {
  let cursor: string | null = null;
  for (let page = 0; page < QUEUE_PAGES; page++) {
    const params: Record<string, unknown> = cursor ? { threadId, cursor } : { threadId };
    const list = parseQueueList(await s.call("thread/queue/list", params));
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
  let ack: unknown;
  try {
    ack = await s.call("thread/queue/add", {
      threadId,
      clientUserMessageId: clientMessageId,
      input: [{ type: "text", text, text_elements: [] }],
    });
  } catch (error) {
    const e = asRelayError(error);
    // Refused before the frame was written, or answered with an error: not stored.
    if (!e.written || e.rpcCode !== undefined) {
      return new RelayError(e.reason, e.message, { written: false, rpcCode: e.rpcCode });
    }
    return e;
  }
  try {
    const submission = parseQueueAdd(ack);
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
  } catch (error) {
    const e = asRelayError(error);
    return new RelayError(e.reason, e.message, { written: true });
  }
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
  try {
    if (!isUuid(ref)) {
      const resolved = await resolveName(s, ref);
      if (resolved instanceof RelayError) {
        return receipt({ status: "not_sent", reason: resolved.reason, message: resolved.message });
      }
      threadId = resolved;
    }
  } catch (error) {
    const e = asRelayError(error);
    return receipt({ status: "not_sent", reason: e.reason, message: e.message });
  }
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

/** The `codex_queue_message` tool. */
export const queueMessageTool: Tool<typeof input, typeof receiptSchema> = {
  name: "codex_queue_message",
  title: "Queue a message into a Codex thread",
  description:
    "Stores a message in a Codex thread's queue and returns a receipt. `queued` means Codex acknowledged storing it, not that it ran: the message runs when a Codex process next resumes the thread (a process that already has the thread open runs it after its own next turn). `not_sent` means it was certainly not stored. `unknown` means it may have been stored: do not send it again blindly; check the thread first. The receipt's clientMessageId identifies the message for codex_read_reply.",
  inputSchema: input,
  outputSchema: receiptSchema,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  enabled: () => true,
  run({ threadId, text }, ctx): Promise<Receipt> {
    return ctx.owner.operation((s) => queueMessage(s, threadId, text), {
      signal: ctx.signal,
      label: "queue",
    });
  },
  render: renderReceipt,
};

/** One paragraph telling what a receipt means. */
export function renderReceipt(r: Receipt): string {
  const ids = `clientMessageId ${r.clientMessageId}, thread ${r.threadId}`;
  if (r.status === "queued") {
    const how = r.confirmedBy === "queue_list"
      ? "The acknowledgement was lost, but the thread's queue lists it."
      : "Codex acknowledged storing it.";
    return `Queued (${ids}). ${how} Queued means stored, not processed: it runs when a Codex process next resumes this thread; if another Codex process has the thread open, that process runs it after its own next turn completes.`;
  }
  if (r.status === "not_sent") {
    return `Not sent (${r.reason}): ${r.message} Nothing was stored (${ids}).`;
  }
  return `Unknown (${r.reason}): ${r.message} The message may have been stored (${ids}). It was not sent again; check the thread before sending it once more.`;
}
