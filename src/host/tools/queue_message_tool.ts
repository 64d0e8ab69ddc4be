/**
 * `codex_queue_message`: stores a message in a thread's Codex queue and
 * returns an honest receipt (`src/ops/queue_message.ts`).
 * @module
 */

import { z } from "zod";
import { messageText, threadRef } from "../../ops/inputs.ts";
import { queueMessage, type Receipt, receiptSchema } from "../../ops/queue_message.ts";
import type { Tool } from "../tool.ts";

const input = z.strictObject({
  threadId: threadRef.describe(
    "The thread's id (UUID), or its exact name if exactly one thread has it",
  ),
  text: messageText,
});

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
    return ctx.connection.operation((s) => queueMessage(s, threadId, text), {
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
