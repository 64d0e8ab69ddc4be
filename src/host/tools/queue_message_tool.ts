/**
 * `codex_queue_message`: stores a message in a thread's Codex queue and
 * returns an honest receipt (`src/ops/queue_message.ts`).
 * @module
 */

import { z } from "zod";
import { messageText, threadRef } from "../../reply/inputs.ts";
import { type Receipt, receiptSchema } from "../../reply/thread_schemas.ts";
import type { Tool } from "../tool.ts";
import { sentences } from "../text.ts";
import { spawnSurface, type Surface } from "../surface.ts";
import { queuedMeans } from "../instructions.ts";
import { type Explained, reasonNext } from "../next_steps.ts";

const input = z.strictObject({ threadId: threadRef, text: messageText });

/** The `codex_queue_message` tool. */
export const queueMessageTool: Tool<typeof input, typeof receiptSchema> = {
  name: "codex_queue_message",
  title: "Queue a message",
  description: (surface) =>
    `Stores a message in a thread's queue. ${
      surface.backend.shared
        ? "A thread the Codex daemon holds idle starts it at once, a busy one after its turn, others at their next resume."
        : "It runs when a Codex process next resumes the thread (one that has it open: after its next turn)."
    } Receipt: queued (stored), not_sent, or unknown (may be stored: check before resending).${
      surface.caps.replyRead ? " Reply: codex_read_reply." : ""
    }`,
  inputSchema: input,
  outputSchema: receiptSchema,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  enabled: () => true,
  async run({ threadId, text }, ctx): Promise<Receipt> {
    // The queueing's code loads with the first call (docs/reliability.md, "Start-up").
    const { queueMessage } = await import("../../ops/queue_message.ts");
    const receipt = await ctx.connection.operation((s) => queueMessage(s, threadId, text), {
      signal: ctx.signal,
      label: "queue",
    });
    if (receipt.status !== "not_sent") {
      ctx.queuedHere.record(receipt.threadId, receipt.clientMessageId);
    }
    return receipt;
  },
  explain: explainReceipt,
};

/** What a receipt means on this backend, and what to do next. */
export function explainReceipt(
  r: Receipt,
  surface: Surface = spawnSurface({ replyRead: false, turnStart: false }),
): Explained {
  const { caps } = surface;
  const ids = `clientMessageId ${r.clientMessageId}, thread ${r.threadId}`;
  if (r.status === "queued") {
    const how = r.confirmedBy === "queue_list"
      ? "The acknowledgement was lost, but the thread's queue lists it."
      : "";
    const read = caps.replyRead ? "Read the reply with codex_read_reply or codex_wait_reply" : "";
    const withdraw = caps.turnStart
      ? "codex_withdraw_message takes it back while it is still queued"
      : "";
    const means = queuedMeans(surface);
    return {
      said: sentences(`Queued (${ids})`, how),
      next: sentences(`${means.charAt(0).toUpperCase()}${means.slice(1)}`, read, withdraw),
    };
  }
  if (r.status === "not_sent") {
    return {
      said: sentences(`Not sent (${r.reason}): ${r.message}`, `Nothing was stored (${ids})`),
      next: sentences(reasonNext(r.reason), "Sending it again is safe: nothing was stored"),
    };
  }
  return {
    said: sentences(
      `Unknown (${r.reason}): ${r.message}`,
      `The message may have been stored (${ids}) and was not sent again`,
    ),
    next: "It may have been stored: check the thread before sending it once more.",
  };
}
