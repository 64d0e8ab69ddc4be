/**
 * `codex_wait_reply` (with `--allow-reply-read`): `codex_read_reply` repeated
 * with backoff until a final answer is observed, the turn ends, or the wait
 * time (1..55 s) is up (`src/ops/wait_reply.ts`), with progress
 * notifications; a turn this relay runs is followed instead
 * (`src/host/follow_turn.ts`).
 * @module
 */

import { z } from "zod";
import { asRelayError } from "../../core/errors.ts";
import { buildReadResult } from "../../reply/read_result.ts";
import { readReplySchema } from "../../reply/schemas.ts";
import { declinedRequestsSchema, pendingApprovalSchema } from "../../turn/run_result.ts";
import {
  WAIT_MARGIN_MS,
  WAIT_SECONDS,
  waitForReply,
  type WaitProgress,
} from "../../ops/wait_reply.ts";
import { clientMessageId, cursorInput, threadId } from "../../ops/inputs.ts";
import { READ_ANNOTATIONS, type Tool, type ToolInputRequired } from "../tool.ts";
import { followForWait } from "../follow_turn.ts";
import { declinedText, renderReadReply } from "../render_reply.ts";

const input = z.strictObject({
  threadId: threadId.describe("The thread's id (a UUID), as in the receipt"),
  clientMessageId,
  timeoutSeconds: z.number().int().min(WAIT_SECONDS.min).max(WAIT_SECONDS.max).default(
    WAIT_SECONDS.default,
  ).describe("How long to wait, 1 to 55 seconds (default 30)"),
  cursor: cursorInput.optional(),
});

/** The `codex_wait_reply` result: a `codex_read_reply` result plus `timedOut`. */
export const waitReplySchema = readReplySchema.extend({
  timedOut: z.boolean().describe(
    "True when the wait time ran out before a final answer or the end of the turn was observed",
  ),
  pendingApprovals: z.array(pendingApprovalSchema).optional()
    .describe("Requests from a turn codex-relay runs that still wait for your answer"),
  declinedRequests: declinedRequestsSchema,
});

type WaitOutput = z.output<typeof waitReplySchema>;

/** The `codex_wait_reply` tool. */
export const waitReplyTool: Tool<typeof input, typeof waitReplySchema> = {
  name: "codex_wait_reply",
  title: "Wait for the reply to a queued message",
  description:
    "Waits up to timeoutSeconds (1 to 55, default 30) for the Codex turn that took a message you queued to store a final answer or to end, re-reading with backoff, and returns what codex_read_reply returns plus `timedOut`. Sends progress notifications when the request has a progress token. Returns early on `ambiguous` or `unavailable`; keeps waiting on `no_match` (the message may still be queued). Association same_turn_not_exclusive: replies are all final answers of that turn, not a certified answer to this message alone. Call again to keep waiting.",
  inputSchema: input,
  outputSchema: waitReplySchema,
  annotations: READ_ANNOTATIONS,
  enabled: (caps) => caps.replyRead,
  async run(args, ctx): Promise<WaitOutput | ToolInputRequired> {
    const followed = await followForWait(args, ctx);
    if (followed?.kind === "input") return { inputRequired: followed.result };
    if (followed) {
      return {
        ...followed.read,
        timedOut: followed.timedOut,
        ...(followed.pending ? { pendingApprovals: followed.pending } : {}),
        ...(followed.declined ? { declinedRequests: followed.declined } : {}),
      };
    }
    const onProgress = (p: WaitProgress) =>
      ctx.progress(
        `Waiting for a final answer: read ${p.reads}, ${describe(p)}, ${
          Math.round(p.elapsedMs / 1000)
        } of ${p.timeoutMs / 1000} s`,
        p.reads,
      );
    try {
      return await ctx.connection.operation(
        (s) => waitForReply(s, args, { clock: ctx.connection.clock, onProgress }),
        {
          signal: ctx.signal,
          budgetMs: args.timeoutSeconds * 1000 + WAIT_MARGIN_MS,
          label: "wait",
        },
      );
    } catch (error) {
      const { reason } = asRelayError(error);
      ctx.log.warn("wait failed", { reason });
      const scope = { threadId: args.threadId, clientMessageId: args.clientMessageId };
      return {
        ...buildReadResult({ ...scope, match: { kind: "unavailable", reason } }),
        timedOut: false,
      };
    }
  },
  render(out) {
    const pending = out.pendingApprovals?.length
      ? ` ${out.pendingApprovals.length} request(s) from Codex wait for your answer: ${
        out.pendingApprovals.map((p) => p.summary).join("; ")
      }. Call codex_wait_reply again to answer them.`
      : "";
    const read = renderReadReply(out) + pending + declinedText(out.declinedRequests);
    return out.timedOut
      ? `The wait timed out before a final answer or the end of the turn was observed. ${read} Call codex_wait_reply again to keep waiting.`
      : read;
  },
};

/** What the last read saw, without any text. */
function describe(p: WaitProgress): string {
  const last = p.last;
  if (last.status === "observed" && last.turn) return `matched, turn ${last.turn.status}`;
  return last.status === "no_match" ? "message not found yet" : last.status;
}
