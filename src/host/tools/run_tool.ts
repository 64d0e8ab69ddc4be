/**
 * `codex_run` (turn-start level): runs a message as a Codex turn in this
 * relay, forwarding Codex's approvals and elicitations to the client as
 * user-input rounds of the call, and returns when the turn ends or the wait
 * ends.
 * @module
 */

import { z } from "zod";
import type { RoundState } from "../input_rounds.ts";
import type { Receipt } from "../../ops/queue_message.ts";
import {
  type PendingSummary,
  runOutput,
  type RunResult,
  runResult,
} from "../../turn/run_result.ts";
import { type Followed, followTurn, takeAnswers } from "../follow_turn.ts";
import { messageText, threadId } from "../../ops/inputs.ts";
import { type CallContext, type Tool, type ToolInputRequired, ToolRefusal } from "../tool.ts";
import { declinedText, replyText } from "../render_reply.ts";

const input = z.strictObject({
  threadId: threadId.optional().describe("Run in this existing thread (its id)"),
  cwd: z.string().min(1).max(4096).regex(/^(\/|[A-Za-z]:[\\/])/, "cwd must be an absolute path")
    .refine((s) => !s.includes("\0"), "cwd contains a NUL character")
    .refine((s) => s.isWellFormed(), "cwd contains a lone surrogate (not well-formed Unicode)")
    .optional().describe("Or start a new thread in this directory (absolute path)"),
  text: messageText,
  waitSeconds: z.number().int().min(1).max(55).default(45)
    .describe("How long this call waits for the turn, 1 to 55 s (default 45)"),
}).refine((v) => (v.threadId === undefined) !== (v.cwd === undefined), {
  message: "Give exactly one of threadId or cwd",
});

/** The `codex_run` tool. */
export const runTool: Tool<typeof input, typeof runOutput> = {
  name: "codex_run",
  title: "Run a message as a Codex turn",
  description:
    "Runs a message as a Codex turn now, in this relay: with threadId it queues the message into that thread, loads the thread and starts it; with cwd it starts a new thread in that directory. Codex's approval requests and questions come to you as input requests of this call. Returns when the turn ends or after waitSeconds: turn.status is completed, failed, interrupted or running (then follow it with codex_wait_reply, or stop it with codex_interrupt). A thread another Codex process has open returns held_elsewhere and the message stays queued there. A running turn holds one of the relay's 4 helpers until it ends; when all 4 are in use, a call waits up to 20 s for one and then returns busy with nothing queued.",
  inputSchema: input,
  outputSchema: runOutput,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  enabled: (caps) => caps.turnStart,
  async run(args, ctx): Promise<RunResult | ToolInputRequired> {
    const state = ctx.mcp.mcpReq.requestState<RoundState>();
    if (state !== undefined) return await retry(state, args, ctx);
    if (ctx.mcp.mcpReq.inputResponses !== undefined) {
      // A retry that lost its state: starting a new run would queue the text a second time.
      throw new ToolRefusal(
        "This call carries input responses but no requestState; nothing was queued or sent to Codex",
      );
    }
    const start = args.threadId
      ? await ctx.starts.inThread(args.threadId, args.text, ctx.signal)
      : await ctx.starts.inCwd(args.cwd!, args.text, ctx.signal);
    if (!start.runtime) {
      return {
        receipt: start.receipt,
        threadId: start.receipt.threadId || args.threadId || "",
        turn: null,
        reason: start.reason,
        message: start.message,
      };
    }
    const base = {
      v: 1 as const,
      tool: "codex_run" as const,
      threadId: start.runtime.threadId,
      clientMessageId: start.runtime.clientMessageId,
      waitSeconds: args.waitSeconds,
      receipt: start.receipt,
    };
    return shape(await followTurn(start.runtime, ctx, base, 0), start.receipt);
  },
  render: renderRun,
};

async function retry(
  state: RoundState,
  args: { threadId?: string },
  ctx: CallContext,
): Promise<RunResult | ToolInputRequired> {
  takeAnswers(
    ctx.router,
    state,
    ctx.mcp.mcpReq.inputResponses,
    state.tool === "codex_run" && state.receipt !== undefined &&
      (args.threadId === undefined || args.threadId === state.threadId),
  );
  const receipt = state.receipt!;
  const runtime = ctx.turns.byId(state.runtimeId);
  if (!runtime) {
    const run = ctx.turns.finished(state.threadId, state.clientMessageId);
    if (run) return runResult({ kind: "settled", run }, receipt);
    return {
      receipt,
      threadId: state.threadId,
      turn: null,
      reason: "cancelled",
      message: "The turn's runtime is gone (codex-relay restarted or released it)",
    };
  }
  return shape(await followTurn(runtime, ctx, { ...state }, state.round), receipt);
}

function shape(followed: Followed, receipt: Receipt): RunResult | ToolInputRequired {
  return followed.kind === "input"
    ? { inputRequired: followed.result }
    : runResult(followed, receipt);
}

function pendingText(pending: PendingSummary[] | undefined): string {
  if (!pending?.length) return "";
  return ` ${pending.length} request(s) from Codex wait for your answer (call codex_wait_reply to answer them): ${
    pending.map((p) => p.summary).join("; ")
  }.`;
}

function renderRun(out: RunResult): string {
  const r = out.receipt;
  if (!out.turn) {
    const stored = r.status === "queued"
      ? " The message is queued in the thread (receipt queued): do not send it again."
      : r.status === "unknown"
      ? " The message may have been stored (receipt unknown): check the thread before sending it again."
      : " Nothing was stored (receipt not_sent).";
    const why = out.message
      ? ` ${/[.!?]$/.test(out.message) ? out.message : `${out.message}.`}`
      : "";
    return `The turn did not start (${out.reason}):${why}${stored}`;
  }
  const ids = `thread ${out.threadId}, clientMessageId ${r.clientMessageId}`;
  if (out.turn.status === "running") {
    return `The turn is still running (${ids}).${pendingText(out.pendingApprovals)}${
      declinedText(out.declinedRequests)
    } Follow it with codex_wait_reply or stop it with codex_interrupt.`;
  }
  const failure = out.failureClass
    ? ` Failure class ${out.failureClass}${
      out.retryable
        ? `, retryable${out.retryAfterMs ? ` after ${out.retryAfterMs} ms` : ""}`
        : ", not retryable"
    }.${out.error ? ` ${out.error}` : ""}`
    : "";
  const replies = out.replies
    ? out.replies.length
      ? ` Final answer${out.replies.length > 1 ? "s" : ""}: ${
        out.replies.map((x) =>
          "moderated" in x ? replyText(x) : x.text + (x.truncated ? " […truncated]" : "")
        ).join("\n\n")
      }`
      : " No final answer was stored."
    : "";
  return `The turn ${out.turn.status} (${ids}).${failure}${
    declinedText(out.declinedRequests)
  }${replies}`;
}
