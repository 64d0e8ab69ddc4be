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
import { clientMessageId, cursorInput, threadRef } from "../../ops/inputs.ts";
import { resolveRef } from "../../ops/resolve_thread.ts";
import { RelayError } from "../../core/errors.ts";
import { READ_ANNOTATIONS, type Tool, type ToolInputRequired } from "../tool.ts";
import { followForWait } from "../follow_turn.ts";
import { declinedText, renderReadReply } from "../render_reply.ts";
import { sentence, sentences } from "../text.ts";

const input = z.strictObject({
  threadId: threadRef,
  clientMessageId,
  timeoutSeconds: z.number().int().min(WAIT_SECONDS.min).max(WAIT_SECONDS.max).default(
    WAIT_SECONDS.default,
  ).describe(`Longest wait of this call, in seconds (${WAIT_SECONDS.min}..${WAIT_SECONDS.max})`),
  cursor: cursorInput.optional(),
});

/** The `codex_wait_reply` result: a `codex_read_reply` result plus `timedOut`. */
export const waitReplySchema = readReplySchema.extend({
  timedOut: z.boolean(),
  pendingApprovals: z.array(pendingApprovalSchema).optional(),
  notes: z.array(z.string()).optional(),
  declinedRequests: declinedRequestsSchema,
});

type WaitOutput = z.output<typeof waitReplySchema>;

/** The `codex_wait_reply` tool. */
export const waitReplyTool: Tool<typeof input, typeof waitReplySchema> = {
  name: "codex_wait_reply",
  title: "Wait for a reply",
  description:
    "codex_read_reply (same_turn_not_exclusive) repeated until a final answer, the turn's end or timeoutSeconds (then timedOut). Follows codex_run's turns.",
  inputSchema: input,
  outputSchema: waitReplySchema,
  annotations: READ_ANNOTATIONS,
  enabled: (caps) => caps.replyRead,
  async run(given, ctx): Promise<WaitOutput | ToolInputRequired> {
    const threadId = await resolveRef(ctx.connection, given.threadId, ctx.signal);
    if (threadId instanceof RelayError) {
      const scope = { threadId: given.threadId, clientMessageId: given.clientMessageId };
      return {
        ...buildReadResult({ ...scope, match: { kind: "unavailable", reason: threadId.reason } }),
        timedOut: false,
      };
    }
    const args = { ...given, threadId };
    const followed = await followForWait(args, ctx);
    if (followed?.kind === "input") return { inputRequired: followed.result };
    if (followed) {
      return {
        ...followed.read,
        timedOut: followed.timedOut,
        ...(followed.pending ? { pendingApprovals: followed.pending } : {}),
        ...(followed.declined ? { declinedRequests: followed.declined } : {}),
        ...(followed.notes?.length ? { notes: followed.notes } : {}),
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
    const notes = (out.notes ?? []).map(sentence);
    const pending = out.pendingApprovals?.length
      ? `${out.pendingApprovals.length} request(s) from Codex wait for your answer: ${
        out.pendingApprovals.map((p) => p.summary).join("; ")
      }. Call codex_wait_reply again to answer them.`
      : "";
    const read = renderReadReply(out, {
      keepWaiting: pending
        ? ""
        : `${
          out.timedOut ? "The wait timed out; call" : "Call"
        } codex_wait_reply again to keep waiting.`,
    });
    const waited = out.timedOut && out.status === "no_match"
      ? " The wait timed out; call codex_wait_reply again to keep waiting."
      : "";
    return sentences(read.trim(), ...notes, pending, declinedText(out.declinedRequests)) + waited;
  },
};

/** What the last read saw, without any text. */
function describe(p: WaitProgress): string {
  const last = p.last;
  if (last.status === "observed" && last.turn) return `matched, turn ${last.turn.status}`;
  return last.status === "no_match" ? "message not found yet" : last.status;
}
