/**
 * `codex_run` (turn-start level): runs a message as a Codex turn in this
 * relay, forwarding Codex's approvals and elicitations to the client as
 * user-input rounds of the call, and returns when the turn ends or the wait
 * ends. What `codex_review` shares with it is here too: the call of a run
 * ({@linkcode runCall}) and the text of its result ({@linkcode explainRun}).
 * @module
 */

import { z } from "zod";
import type { RoundState } from "../input_rounds.ts";
import { runOutput, type RunResult } from "../../reply/schemas.ts";
import { noTurnResult, runResult } from "../../turn/run_result.ts";
import { abortReason } from "../../core/errors.ts";
import { retriedRound, type RoundBase, waitInCall } from "../wait_call.ts";
import type { TurnRuntime } from "../../turn/turn_runtime.ts";
import { messageText, runOptionShapes, threadRef } from "../../reply/inputs.ts";
import type { RunOptions } from "../../turn/run_options.ts";
import { imageInputs, imagesInput } from "../../reply/images.ts";
import type { StartResult } from "../../turn/turn_start.ts";
import { sentence, sentences } from "../text.ts";
import {
  type CallContext,
  type Tool,
  type ToolInputRequired,
  ToolRefusal,
  TURN_ANNOTATIONS,
} from "../tool.ts";
import { declinedText, pendingText, replyText, usageText } from "../render_reply.ts";
import {
  filesText,
  runWorktreeOutput,
  type RunWorktreeResult,
  worktreeField,
  worktreeName,
} from "./run_worktree.ts";
import type { Surface } from "../surface.ts";
import { type Explained, reasonNext } from "../next_steps.ts";

const fields = {
  threadId: threadRef.optional().describe(
    "Thread UUID or unique exact name (or give cwd)",
  ),
  cwd: z.string().min(1).max(4096).regex(/^(\/|[A-Za-z]:[\\/])/, "cwd must be an absolute path")
    .refine((s) => !s.includes("\0"), "cwd contains a NUL character")
    .refine((s) => s.isWellFormed(), "cwd contains a lone surrogate (not well-formed Unicode)")
    .optional().describe(
      "Or a new thread in this absolute directory",
    ),
  text: messageText,
  waitSeconds: z.number().int().min(1).max(55).default(45).describe(
    "Seconds to wait for the turn's end (1..55)",
  ),
  ...runOptionShapes,
  outputSchema: z.record(z.string(), z.unknown()).optional().describe(
    "JSON Schema for the final answer (strict: objects closed, all required; 64 KiB); idle thread only",
  ),
  images: imagesInput,
};

/** The checks of a run's arguments across fields. */
function checked<T extends z.ZodType<{ threadId?: string; cwd?: string; name?: string }>>(o: T) {
  return o.refine((v) => (v.threadId === undefined) !== (v.cwd === undefined), {
    message: "Give exactly one of threadId or cwd",
  }).refine((v) => v.name === undefined || v.cwd !== undefined, {
    message: "name names a new thread: give it with cwd",
  });
}

/** Without `--allow-worktrees`; with it, `worktree` too (for a new thread only). */
const plainInput = checked(z.strictObject(fields));
const input = checked(z.strictObject({ ...fields, worktree: worktreeField })).refine(
  (v) => v.worktree === undefined || v.cwd !== undefined,
  { message: "worktree makes a new thread's worktree: give it with cwd" },
);

/** The `codex_run` tool. */
export const runTool: Tool<typeof input, typeof runWorktreeOutput> = {
  name: "codex_run",
  title: "Run a turn",
  description:
    "Runs a message as a Codex turn now (in a thread, or a new one in cwd), bringing you Codex's approvals. Returns at the turn's end or after waitSeconds (codex_wait_reply follows on). sandbox and approvalPolicy only tighten.",
  inputSchema: input,
  inputSchemaAt: (caps) => caps.worktrees ? input : plainInput,
  outputSchema: runWorktreeOutput,
  outputSchemaAt: (caps) => caps.worktrees ? runWorktreeOutput : runOutput,
  annotations: TURN_ANNOTATIONS,
  enabled: (caps) => caps.turnStart,
  async run(args, ctx): Promise<RunWorktreeResult | ToolInputRequired> {
    const options: RunOptions = {
      name: args.name,
      model: args.model,
      effort: args.effort,
      sandbox: args.sandbox,
      approvalPolicy: args.approvalPolicy,
      outputSchema: args.outputSchema,
      images: imageInputs(args.images),
    };
    const { text, signal } = { text: args.text, signal: ctx.signal };
    return await runCall(
      "codex_run",
      args,
      ctx,
      () =>
        args.threadId
          ? ctx.starts.inThread(args.threadId, text, signal, options)
          : args.worktree !== undefined && ctx.caps.worktrees
          ? ctx.starts.inWorktree(
            args.cwd!,
            { name: worktreeName(args.worktree), deps: ctx.worktrees },
            text,
            signal,
            options,
          )
          : ctx.starts.inCwd(args.cwd!, text, signal, options),
    );
  },
  explain: explainRun,
};

/**
 * A call of a run (`codex_run`, `codex_review`): a first call starts the run
 * (`start`) and waits on it; a retried round takes its answers and waits on
 * the same run again. Returns the run's result, or the input round it offers.
 */
export async function runCall(
  tool: "codex_run" | "codex_review" | "codex_compact",
  args: { threadId?: string; waitSeconds: number },
  ctx: CallContext,
  start: () => Promise<StartResult>,
): Promise<RunResult | ToolInputRequired> {
  const prior = retriedRound(ctx, { tool, threadRef: args.threadId });
  if (prior) return await resumeRun(prior, ctx);
  if (ctx.mcp.mcpReq.inputResponses !== undefined) {
    throw new ToolRefusal(
      "This call carries input responses but no requestState. Nothing was queued or sent to Codex",
    );
  }
  const { receipt, runtime, reason, message, mcpServers } = await start();
  if (!runtime) {
    return noTurnResult(receipt, receipt.threadId || args.threadId || "", reason, message);
  }
  const { threadId, clientMessageId } = runtime.run;
  const base = {
    v: 1 as const,
    tool,
    threadId,
    clientMessageId,
    waitSeconds: args.waitSeconds,
    receipt,
  };
  const out = await waitOnRun(runtime, ctx, base);
  // The servers the turn runs without (issue 31); the run's notes say it in every result.
  if (mcpServers && !("inputRequired" in out)) out.mcpServers = mcpServers;
  return out;
}

/**
 * A call that follows its run to the turn's end (the compatibility `codex`
 * and `codex-reply`, which had no `waitSeconds`): {@linkcode runCall}, then
 * waits of 55 s each (progress keeps the call alive) until the turn ends.
 * The client cancelling the call interrupts the turn.
 */
export async function runToEnd(
  args: { threadId?: string },
  ctx: CallContext,
  start: () => Promise<StartResult>,
): Promise<RunResult | ToolInputRequired> {
  const waitSeconds = 55;
  let out = await runCall("codex_run", { threadId: args.threadId, waitSeconds }, ctx, start);
  while (!("inputRequired" in out) && out.turn?.status === "running") {
    const run = ctx.turns.run(out.threadId);
    if (ctx.signal.aborted) {
      if (run?.clientMessageId === out.receipt.clientMessageId) {
        await ctx.turns.interrupt(out.threadId);
      }
      return out;
    }
    const { receipt } = out;
    const runtime = run?.clientMessageId === receipt.clientMessageId ? run.handle : undefined;
    if (!runtime) {
      const ended = ctx.turns.finished(out.threadId, receipt.clientMessageId);
      return ended ? runResult({ kind: "settled", run: ended }, receipt) : out;
    }
    const base = {
      v: 1 as const,
      tool: "codex_run" as const,
      threadId: out.threadId,
      clientMessageId: receipt.clientMessageId,
      waitSeconds,
      receipt,
    };
    out = await waitOnRun(runtime, ctx, base);
  }
  return out;
}

/** A retried round: the run waited on again, or its end when its runtime is gone. */
async function resumeRun(
  prior: RoundState,
  ctx: CallContext,
): Promise<RunResult | ToolInputRequired> {
  const runtime = ctx.turns.byId(prior.runIds[0]);
  // The state's round fields are replaced by the next round's.
  if (runtime) return await waitOnRun(runtime, ctx, prior, prior);
  const run = ctx.turns.finished(prior.threadId, prior.clientMessageId);
  if (run) return runResult({ kind: "settled", run }, prior.receipt!);
  const gone = "The turn's runtime is gone (codex-relay restarted or released it)";
  return noTurnResult(prior.receipt!, prior.threadId, "cancelled", gone);
}

/** Waits on the run this call follows for up to `base.waitSeconds`: its result, or an input round. */
async function waitOnRun(
  runtime: TurnRuntime,
  ctx: CallContext,
  base: RoundBase,
  prior?: RoundState,
): Promise<RunResult | ToolInputRequired> {
  const out = await waitInCall([{ run: runtime }], ctx, base, prior, "any");
  if ("inputRequired" in out) return out;
  const end = out.ends[0];
  if (end.kind === "read") throw new Error("a run's entry ended as a read");
  const result = runResult(end, base.receipt!);
  // The call was cancelled (a signal's shutdown; a client's cancel gets no answer): it says so.
  if (end.kind !== "running" || !ctx.signal.aborted || result.reason) return result;
  const why = abortReason(ctx.signal, true);
  return { ...result, reason: why.reason, message: `${why.message} while the turn ran` };
}

function aheadText(out: RunResult): string {
  const ahead = out.queuedAhead;
  if (!ahead?.length) return "";
  const list = ahead.map((e) =>
    `${e.clientMessageId ?? "a message without clientMessageId"} (turn ${e.turnId ?? "unknown"})`
  ).join(", ");
  return `Starting it also started ${ahead.length} message(s) queued ahead of yours first: ${list}.`;
}

/** The review part of a result: its findings, one line each, then its text. */
function reviewText(out: RunResult): string {
  const review = out.review;
  if (!review) return "";
  const lines = review.findings.map((f) =>
    `- ${
      f.priority === null ? "" : `[P${f.priority}] `
    }${f.title} (${f.file}:${f.lineStart}-${f.lineEnd})`
  );
  const verdict = review.verdict
    ? ` Verdict: ${review.verdict}${review.verdictReason ? ` (${review.verdictReason})` : ""}.`
    : "";
  return `Review, ${review.findings.length} finding(s)${
    lines.length ? `:\n${lines.join("\n")}` : "."
  }${verdict}\n\n${review.text}${review.truncated ? " […truncated]" : ""}`;
}

/** The structured part of a result. */
function structuredText(out: RunResult): string {
  const s = out.structured;
  if (!s) return "";
  return s.valid
    ? `The answer is valid against outputSchema (structured.value).`
    : `The answer is not valid against outputSchema: ${s.error}.`;
}

/** The text of a run's result (codex_run, codex_review). */
export function explainRun(out: RunResult, surface?: Surface): Explained {
  const r = out.receipt;
  if (!out.turn) {
    const stored = r.status === "queued"
      ? "The message is queued in the thread (receipt queued): do not send it again."
      : r.status === "unknown"
      ? "The message may have been stored (receipt unknown): check the thread before sending it again."
      : "Nothing was stored (receipt not_sent).";
    return {
      said: sentences(`The turn did not start (${out.reason}): ${out.message ?? ""}`),
      next: sentences(out.reason ? reasonNext(out.reason) : "", stored),
    };
  }
  const ids = `thread ${out.threadId}, clientMessageId ${r.clientMessageId}`;
  const notes = (out.notes ?? []).map(sentence);
  if (out.turn.status === "running") return explainRunning(out, ids, notes, surface);
  const retry = out.retryable ? `, retryable${retryAfter(out)}` : ", not retryable";
  const failure = out.failureClass
    ? sentences(`Failure class ${out.failureClass}${retry}`, out.error)
    : sentence(out.error);
  const none = out.turn.status === "completed"
    ? "It stored no final answer."
    : `It ${TURN_ENDED[out.turn.status]} before a final answer.`;
  const replies = out.replies
    ? out.replies.length
      ? `Final answer${out.replies.length > 1 ? "s" : ""}: ${
        out.replies.map((x) =>
          "moderated" in x ? replyText(x) : x.text + (x.truncated ? " […truncated]" : "")
        ).join("\n\n")
      }`
      : none
    : "";
  const extra = [structuredText(out), reviewText(out)].filter((x) => x).join("\n\n");
  const said = sentences(
    `The turn ${TURN_ENDED[out.turn.status]} (${ids})`,
    aheadText(out),
    ...notes,
    failure,
    declinedText(out.declinedRequests),
    filesText(out),
    usageText(out.usage),
  ) +
    (replies && !out.review ? ` ${replies}` : "") + (extra ? `\n\n${extra}` : "");
  return { said, next: endedNext(out) };
}

/** How a turn's end reads: "The turn completed", "The turn was interrupted". */
const TURN_ENDED: Record<string, string> = {
  completed: "completed",
  failed: "failed",
  interrupted: "was interrupted",
};

/** How long to wait before a retry, when the result says (" after N ms"). */
function retryAfter(out: RunResult): string {
  return out.retryAfterMs ? ` after ${out.retryAfterMs} ms` : "";
}

/** What to do after a turn that ended. */
function endedNext(out: RunResult): string {
  if (out.fix) return sentence(`Fix: ${out.fix}`);
  if (out.retryable) {
    return `The turn ended; it may be retried${retryAfter(out)} with a new codex_run.`;
  }
  if (out.turn?.status === "interrupted") {
    return "The turn was interrupted: nothing more will come of it. If a cancelled request of Codex stopped it, notes name it; running the message again needs that request accepted.";
  }
  if (out.review?.verdict === "failed") {
    return "The review failed (review.verdictReason): do not read it as clean; read review.text, or run it again.";
  }
  if (out.review) return "The review ended: its findings are in review (its text in review.text).";
  if (out.structured) {
    return out.structured.valid
      ? "The turn ended: its answer is in structured.value."
      : "The answer did not match outputSchema: run again with a clearer message, or read replies.";
  }
  if (out.replies?.length) return "The turn ended: its final answer is in replies.";
  return "The turn ended: nothing to follow.";
}

function explainRunning(
  out: RunResult,
  ids: string,
  notes: string[],
  surface: Surface | undefined,
): Explained {
  const reads = surface?.caps.replyRead !== false;
  // Where a running turn lives, as the backend decides.
  const where = surface?.backend.shared
    ? "It runs in the Codex daemon and keeps running if codex-relay exits"
    : "It runs inside codex-relay and ends if codex-relay exits";
  if (out.reason === "cancelled") {
    return {
      said: sentences(`${out.message} (${ids})`, where, ...notes),
      next: surface?.backend.shared && reads
        ? "Follow it with codex_wait_reply once codex-relay is back."
        : "Its end is not followed: read the thread once codex-relay is back.",
    };
  }
  if (out.reason === "connection_lost") {
    return {
      said: sentences(`${out.message} (${ids})`, ...notes),
      next: reads
        ? "Call codex_wait_reply to follow it again once the daemon answers."
        : "codex_list_threads shows whether it still runs once the daemon answers.",
    };
  }
  return {
    said: sentences(
      `The turn is running (${ids})`,
      out.activity ? `Latest from Codex: ${out.activity}` : "",
      where,
      aheadText(out),
      ...notes,
      pendingText(out.pendingRequests),
      declinedText(out.declinedRequests),
    ),
    next: !reads
      ? "codex_list_threads shows whether it still runs; codex_interrupt stops it."
      : out.pendingRequests?.length
      ? "Call codex_wait_reply to answer Codex's requests, or stop the turn with codex_interrupt."
      : "Follow it with codex_wait_reply or stop it with codex_interrupt.",
  };
}
