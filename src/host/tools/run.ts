/**
 * `codex_run` (turn-start level): runs a message as a Codex turn in this
 * relay, forwarding Codex's approvals and elicitations to the client as
 * user-input rounds of the call, and returns when the turn ends or the wait
 * ends.
 * @module
 */

import { z } from "zod";
import type { RoundState } from "../../elicit/input_rounds.ts";
import type { FinishedRun } from "../../turn/turn_registry.ts";
import type { RunSnapshot } from "../../turn/turn_runtime.ts";
import { type Followed, followTurn, type PendingSummary, takeAnswers } from "../follow_turn.ts";
import { messageText, reasonSchema, threadId } from "../schemas.ts";
import { type CallContext, type Tool, ToolRefusal } from "../tool.ts";
import { receiptSchema } from "./queue_message.ts";
import { replySchema, replyText } from "./read_reply.ts";

/** Requests of Codex the relay declined at once, as `declinedRequests` (also in codex_wait_reply). */
export const declinedRequestsSchema = z.array(z.object({ method: z.string(), summary: z.string() }))
  .optional().describe(
    "Requests of Codex that codex-relay cannot forward to you (for example an openai/userVerification elicitation); Codex got decline at once",
  );

/** The `declinedRequests` field of a snapshot: present only when something was declined. */
export function runDeclined(snapshot: RunSnapshot): { declinedRequests?: PendingSummary[] } {
  return snapshot.declined.length > 0
    ? { declinedRequests: snapshot.declined.map((d) => ({ method: d.method, summary: d.summary })) }
    : {};
}

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

/** The `codex_run` result. */
export const runOutput = z.object({
  receipt: receiptSchema,
  threadId: z.string(),
  turn: z.object({
    id: z.string().nullable(),
    status: z.enum(["completed", "failed", "interrupted", "running"]),
  }).nullable(),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  failureClass: z.enum(["capacity", "stalled", "auth", "bad_request", "internal", "unknown"])
    .optional(),
  retryable: z.boolean().optional(),
  retryAfterMs: z.number().optional(),
  error: z.string().optional(),
  pendingApprovals: z.array(z.object({ method: z.string(), summary: z.string() })).optional(),
  declinedRequests: declinedRequestsSchema,
  replies: z.array(replySchema).optional(),
  nextCursor: z.string().nullable().optional(),
});

type Output = z.output<typeof runOutput>;
type Receipt = z.output<typeof receiptSchema>;

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
  async run(args, ctx): Promise<Output | { inputRequired: unknown }> {
    const { turns } = ctx;
    if (!turns || !ctx.router) {
      throw new ToolRefusal("codex_run is not enabled at this capability level");
    }
    const state = ctx.mcp.mcpReq.requestState<RoundState>();
    if (state !== undefined) return await retry(state, args, ctx);
    if (ctx.mcp.mcpReq.inputResponses !== undefined) {
      // A retry that lost its state: starting a new run would queue the text a second time.
      throw new ToolRefusal(
        "This call carries input responses but no requestState; nothing was queued or sent to Codex",
      );
    }
    const start = args.threadId
      ? await turns.startInThread(args.threadId, args.text, ctx.signal)
      : await turns.startInCwd(args.cwd!, args.text, ctx.signal);
    if (!start.runtime) {
      return {
        receipt: start.receipt,
        threadId: start.receipt.threadId || args.threadId || "",
        turn: null,
        reason: start.reason ?? start.receipt.reason,
        message: start.message ?? start.receipt.message,
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
    return shape(await followTurn(start.runtime, followDeps(ctx), base, 0), start.receipt);
  },
  render: renderRun,
};

async function retry(
  state: RoundState,
  args: { threadId?: string },
  ctx: CallContext,
): Promise<Output | { inputRequired: unknown }> {
  takeAnswers(
    ctx.router!,
    state,
    ctx.mcp.mcpReq.inputResponses,
    state.tool === "codex_run" && (args.threadId === undefined || args.threadId === state.threadId),
  );
  const receipt = state.receipt as Receipt;
  const runtime = ctx.turns!.byId(state.runtimeId);
  if (!runtime) {
    const run = ctx.turns!.finished(state.threadId, state.clientMessageId);
    if (run) return shape({ kind: "settled", run }, receipt);
    return {
      receipt,
      threadId: state.threadId,
      turn: null,
      reason: "cancelled",
      message: "The turn's runtime is gone (codex-relay restarted or released it)",
    };
  }
  return shape(await followTurn(runtime, followDeps(ctx), { ...state }, state.round), receipt);
}

/** What following a turn needs, from a call context. */
export function followDeps(ctx: CallContext): Parameters<typeof followTurn>[1] {
  return {
    turns: ctx.turns!,
    router: ctx.router!,
    clock: ctx.clock,
    modes: ctx.clientModes(),
    signal: ctx.signal,
    progress: (message, n) => ctx.progress(message, n),
    mint: (s) => ctx.mintRound(s),
  };
}

/** The reply fields of a finished run (reply-read level only). */
export function runReplies(run: FinishedRun): Pick<Output, "replies" | "nextCursor"> {
  const read = run.replies as
    | { replies?: Output["replies"]; nextCursor?: string | null }
    | undefined;
  if (!read) return {};
  return { replies: read.replies ?? [], nextCursor: read.nextCursor ?? null };
}

/** The turn fields of a snapshot. */
export function runTurn(snapshot: RunSnapshot, running: boolean): Output["turn"] {
  if (running) return { id: snapshot.turnId, status: "running" };
  const status = snapshot.phase === "queued" || snapshot.phase === "running"
    ? "running"
    : snapshot.phase;
  return { id: snapshot.turnId, status };
}

function shape(followed: Followed, receipt: Receipt): Output | { inputRequired: unknown } {
  if (followed.kind === "input") return { inputRequired: followed.result };
  const snapshot = followed.kind === "settled" ? followed.run.snapshot : followed.snapshot;
  const out: Output = {
    receipt,
    threadId: snapshot.threadId,
    turn: runTurn(snapshot, followed.kind === "running"),
  };
  if (snapshot.failure) {
    out.failureClass = snapshot.failure.failureClass;
    out.retryable = snapshot.failure.retryable;
    if (snapshot.failure.retryable && snapshot.failure.retryAfterMs !== undefined) {
      out.retryAfterMs = snapshot.failure.retryAfterMs;
    }
  }
  if (snapshot.error) out.error = snapshot.error;
  Object.assign(out, runDeclined(snapshot));
  if (followed.kind === "running") {
    if (followed.pending.length > 0) out.pendingApprovals = followed.pending;
  } else Object.assign(out, runReplies(followed.run));
  return out;
}

/** What the text says about requests declined at once. */
export function declinedText(declined: PendingSummary[] | undefined): string {
  if (!declined?.length) return "";
  return ` codex-relay declined ${declined.length} request(s) of Codex it cannot forward to you: ${
    declined.map((d) => d.summary).join("; ")
  }.`;
}

function pendingText(pending: PendingSummary[] | undefined): string {
  if (!pending?.length) return "";
  return ` ${pending.length} request(s) from Codex wait for your answer (call codex_wait_reply to answer them): ${
    pending.map((p) => p.summary).join("; ")
  }.`;
}

function renderRun(out: Output): string {
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
