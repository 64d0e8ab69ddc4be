/**
 * `codex_wait_reply` (with `--allow-reply-read`): `codex_read_reply` repeated
 * with backoff on one helper until a final answer is observed, the turn ends,
 * or the wait time (1..55 s) is up, with progress notifications.
 * @module
 */

import { z } from "zod";
import { buildReadResult } from "../../reply/read_result.ts";
import {
  WAIT_MARGIN_MS,
  WAIT_SECONDS,
  waitForReply,
  type WaitProgress,
} from "../../reply/wait_reply.ts";
import { threadId } from "../schemas.ts";
import type { CallContext, Tool } from "../tool.ts";
import type { RoundState } from "../../elicit/input_rounds.ts";
import { heldSession } from "../../owner/owner.ts";
import { readReply } from "../../reply/read_reply.ts";
import type { ReadReplyResult } from "../../reply/read_result.ts";
import type { TurnRuntime } from "../../turn/turn_runtime.ts";
import { type Followed, followTurn, takeAnswers } from "../follow_turn.ts";
import { declinedRequestsSchema, declinedText, followDeps, runDeclined } from "./run.ts";
import {
  clientMessageId,
  cursorInput,
  READ_ANNOTATIONS,
  readReplySchema,
  renderReadReply,
} from "./read_reply.ts";

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
  pendingApprovals: z.array(z.object({ method: z.string(), summary: z.string() })).optional()
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
  async run(args, ctx): Promise<WaitOutput | { inputRequired: unknown }> {
    const scope = { threadId: args.threadId, clientMessageId: args.clientMessageId };
    if (ctx.turns && ctx.caps.replyRead) {
      const followed = await followRelayTurn(args, ctx);
      if (followed) return followed;
    }
    if (!ctx.caps.replyRead) {
      return {
        ...buildReadResult({ ...scope, match: { kind: "unavailable", reason: "not_allowed" } }),
        timedOut: false,
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
      return await ctx.owner.operation(
        (s) => waitForReply(s, args, { clock: ctx.owner.clock, onProgress }),
        {
          signal: ctx.signal,
          budgetMs: args.timeoutSeconds * 1000 + WAIT_MARGIN_MS,
          label: "wait",
        },
      );
    } catch (error) {
      ctx.log.warn("wait failed", { error: error instanceof Error ? error.name : "unknown" });
      return {
        ...buildReadResult({ ...scope, match: { kind: "unavailable", reason: "protocol_error" } }),
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

/**
 * When this relay runs (or just ran) the turn of this message, follow it
 * instead of polling: forward its input rounds, then read its replies on the
 * runtime's own helper. Undefined when the relay has no such turn.
 */
async function followRelayTurn(
  args: { threadId: string; clientMessageId: string; timeoutSeconds: number },
  ctx: CallContext,
): Promise<WaitOutput | { inputRequired: unknown } | undefined> {
  const turns = ctx.turns!;
  const state = ctx.mcp.mcpReq.requestState<RoundState>();
  let round = 0;
  let runtime: TurnRuntime | undefined;
  if (state !== undefined) {
    takeAnswers(
      ctx.router!,
      state,
      ctx.mcp.mcpReq.inputResponses,
      state.tool === "codex_wait_reply" && state.threadId === args.threadId &&
        state.clientMessageId === args.clientMessageId,
    );
    round = state.round;
    runtime = turns.byId(state.runtimeId);
  } else {
    const active = turns.active(args.threadId);
    if (active?.clientMessageId === args.clientMessageId) runtime = active;
  }
  if (!runtime) {
    const run = turns.finished(args.threadId, args.clientMessageId);
    if (run?.replies) {
      return { ...(run.replies as ReadReplyResult), timedOut: false, ...runDeclined(run.snapshot) };
    }
    return undefined;
  }
  const base = {
    v: 1 as const,
    tool: "codex_wait_reply" as const,
    threadId: args.threadId,
    clientMessageId: args.clientMessageId,
    waitSeconds: args.timeoutSeconds,
  };
  const followed: Followed = await followTurn(runtime, followDeps(ctx), base, round);
  if (followed.kind === "input") return { inputRequired: followed.result };
  if (followed.kind === "settled") {
    const replies = followed.run.replies as ReadReplyResult | undefined;
    return replies
      ? { ...replies, timedOut: false, ...runDeclined(followed.run.snapshot) }
      : undefined;
  }
  const read = await readReply(heldSession(runtime.connection, ctx.signal, 12_000), args);
  return {
    ...read,
    timedOut: true,
    ...(followed.pending.length > 0 ? { pendingApprovals: followed.pending } : {}),
    ...runDeclined(followed.snapshot),
  };
}

/** What the last read saw, without any text. */
function describe(p: WaitProgress): string {
  const last = p.last;
  if (last.status === "observed" && last.turn) return `matched, turn ${last.turn.status}`;
  return last.status === "no_match" ? "message not found yet" : last.status;
}
