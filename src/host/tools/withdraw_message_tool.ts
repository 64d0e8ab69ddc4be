/**
 * `codex_withdraw_message` (turn-start level: deleting from a queue controls
 * what Codex does): takes back a message still in a thread's queue
 * (`src/ops/withdraw_message.ts`).
 * @module
 */

import { z } from "zod";
import { clientMessageId, threadRef } from "../../reply/inputs.ts";
import { withdrawMessage } from "../../ops/withdraw_message.ts";
import { type WithdrawResult, withdrawSchema } from "../../reply/schemas.ts";
import { asRelayError } from "../../core/errors.ts";
import type { Tool } from "../tool.ts";
import { sentences } from "../text.ts";
import { reasonNext } from "../next_steps.ts";

const input = z.strictObject({ threadId: threadRef, clientMessageId });

/** The `codex_withdraw_message` tool. */
export const withdrawMessageTool: Tool<typeof input, typeof withdrawSchema> = {
  name: "codex_withdraw_message",
  title: "Withdraw a message",
  description: ({ backend }) =>
    `Takes back a message codex-relay queued, while still queued${
      backend.shared ? " (a thread the Codex daemon holds idle takes it at once)" : ""
    }: withdrawn, not_found (not queued, or not by this relay), already_taken or unknown (answer lost).`,
  inputSchema: input,
  outputSchema: withdrawSchema,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  enabled: (caps) => caps.turnStart,
  async run({ threadId, clientMessageId }, ctx): Promise<WithdrawResult> {
    try {
      return await ctx.connection.operation(
        (s) =>
          withdrawMessage(s, threadId, clientMessageId, {
            readItems: ctx.caps.replyRead,
            queuedHere: ctx.queuedHere,
          }),
        { signal: ctx.signal, label: "withdraw" },
      );
    } catch (error) {
      const e = asRelayError(error);
      return {
        status: "unavailable",
        reason: e.reason,
        message: e.message,
        threadId,
        clientMessageId,
      };
    }
  },
  explain(out) {
    const ids = `(clientMessageId ${out.clientMessageId}, thread ${out.threadId})`;
    switch (out.status) {
      case "withdrawn":
        return {
          said: `Withdrawn ${ids}: the message was deleted from the queue and will not run.`,
          next: "Nothing more to do for this message.",
        };
      case "already_taken":
        return {
          said: sentences(`Not withdrawn ${ids}: ${out.message}`),
          next:
            "A turn took it: to stop that turn use codex_interrupt (only codex-relay's own turns).",
        };
      case "not_found":
        return {
          said: sentences(
            `Not found${out.reason ? ` (${out.reason})` : ""} ${ids}: ${out.message}`,
            "Nothing was deleted",
          ),
          next: out.reason
            ? reasonNext(out.reason)
            : "Nothing to withdraw: check the clientMessageId.",
        };
      case "unknown":
        return {
          said: sentences(`Unknown (${out.reason}) ${ids}: ${out.message}`),
          next: "Call codex_withdraw_message again to check.",
        };
      case "unavailable":
        return {
          said: sentences(
            `Not withdrawn (${out.reason}) ${ids}: ${out.message}`,
            "Nothing was deleted",
          ),
          next: reasonNext(out.reason),
        };
    }
  },
};
