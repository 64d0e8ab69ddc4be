/**
 * `codex_read_reply` (with `--allow-reply-read`): the stored final answers of
 * the turn that took a queued message (`src/ops/read_reply.ts`).
 * @module
 */

import { z } from "zod";
import { unavailableRead } from "../../reply/read_result.ts";
import { type ReadReplyResult, readReplySchema } from "../../reply/schemas.ts";
import { clientMessageId, cursorInput, threadRef } from "../../reply/inputs.ts";
import { resolveThread } from "../../ops/resolve_thread.ts";
import { asRelayError, RelayError } from "../../core/errors.ts";
import { READ_ANNOTATIONS, type Tool } from "../tool.ts";
import { explainReadReply } from "../render_reply.ts";

const input = z.strictObject({
  threadId: threadRef,
  clientMessageId,
  cursor: cursorInput.optional(),
  refresh: z.boolean().optional().describe(
    "With nextCursor: rescan the turn from its start (catches answers finished later)",
  ),
});

/** The `codex_read_reply` tool. */
export const readReplyTool: Tool<typeof input, typeof readReplySchema> = {
  name: "codex_read_reply",
  title: "Read a reply",
  description:
    "Every final answer of that turn which took your message (association: its later input's too), maybe none yet. no_match: not queued nor in the newest 100 items (searchCursor: older). 16 KiB a call; nextCursor continues.",
  inputSchema: input,
  outputSchema: readReplySchema,
  annotations: READ_ANNOTATIONS,
  enabled: (caps) => caps.replyRead,
  async run(args, ctx): Promise<ReadReplyResult> {
    try {
      return await ctx.connection.operation(async (s) => {
        const threadId = await resolveThread(s, args.threadId);
        if (threadId instanceof RelayError) return unavailableRead(args, threadId.reason);
        return await ctx.turns.readMessage(s, { ...args, threadId });
      }, { signal: ctx.signal, label: "read" });
    } catch (error) {
      const { reason } = asRelayError(error);
      ctx.log.warn("read failed", { reason });
      return unavailableRead(args, reason);
    }
  },
  explain: (out, surface) => explainReadReply(out, { turnStart: surface?.caps.turnStart }),
};
