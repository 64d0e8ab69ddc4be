/**
 * `codex_read_reply` (with `--allow-reply-read`): the stored final answers of
 * the turn that took a queued message (`src/ops/read_reply.ts`).
 * @module
 */

import { z } from "zod";
import { readReply } from "../../ops/read_reply.ts";
import { buildReadResult } from "../../reply/read_result.ts";
import { type ReadReplyResult, readReplySchema } from "../../reply/schemas.ts";
import { clientMessageId, cursorInput, threadId } from "../../ops/inputs.ts";
import { asRelayError } from "../../core/errors.ts";
import { READ_ANNOTATIONS, type Tool } from "../tool.ts";
import { renderReadReply } from "../render_reply.ts";

const input = z.strictObject({
  threadId: threadId.describe("The thread's id (a UUID), as in the receipt"),
  clientMessageId,
  cursor: cursorInput.optional(),
  refresh: z.boolean().optional().describe(
    "With a nextCursor: rescan the matched turn from its start, so an item finalized since the last read is not missed",
  ),
});

/** The `codex_read_reply` tool. */
export const readReplyTool: Tool<typeof input, typeof readReplySchema> = {
  name: "codex_read_reply",
  title: "Read the reply to a queued message",
  description:
    "Reads the stored final answers of the Codex turn that took a message you queued (give the receipt's threadId and clientMessageId). `observed`: the message was found in the newest 100 items; `replies` holds every final_answer of that turn (association same_turn_not_exclusive: not a certified answer to this message alone), possibly none yet; `turn.status` is `unverified` while the turn runs in another process. `no_match`: not among those items (still queued, or older: pass searchCursor as cursor). `ambiguous`: several messages carry the id; no text. `unavailable`: with a reason. Reply text is capped at 16 KiB per result; pass nextCursor as cursor for more. A final answer Codex moderated comes as {itemId, moderated: true, replacement?|blockReason?} without its text. Never returns user text, reasoning, commentary or tool output.",
  inputSchema: input,
  outputSchema: readReplySchema,
  annotations: READ_ANNOTATIONS,
  enabled: (caps) => caps.replyRead,
  async run(args, ctx): Promise<ReadReplyResult> {
    try {
      return await ctx.connection.operation((s) => readReply(s, args), {
        signal: ctx.signal,
        label: "read",
      });
    } catch (error) {
      const { reason } = asRelayError(error);
      ctx.log.warn("read failed", { reason });
      const scope = { threadId: args.threadId, clientMessageId: args.clientMessageId };
      return buildReadResult({ ...scope, match: { kind: "unavailable", reason } });
    }
  },
  render: renderReadReply,
};
