/**
 * `codex_wait_reply` (with `--allow-reply-read`): `codex_read_reply` repeated
 * with backoff until a final answer is observed, the turn ends, or the wait
 * time (1..55 s) is up (`src/ops/wait_reply.ts`), with progress
 * notifications; a turn this relay runs is followed instead
 * (`src/host/follow_turn.ts`). With `messages` it waits on 1..16 messages at
 * once (`src/host/wait_many.ts`).
 * @module
 */

import { z } from "zod";
import { asRelayError } from "../../core/errors.ts";
import { unavailableRead } from "../../reply/read_result.ts";
import {
  type WaitMessageResult,
  type WaitReplyResult,
  waitReplySchema,
} from "../../reply/schemas.ts";
import { WAIT_SECONDS, waitForReply, type WaitProgress } from "../../ops/wait_reply.ts";
import {
  clientMessageId,
  clientMessageIdItem,
  cursorInput,
  threadRef,
  threadRefItem,
} from "../../ops/inputs.ts";
import { duplicateAt, WAIT_MESSAGES, WAIT_UNTIL } from "../../reply/wait_set.ts";
import { waitMany, waitOperation } from "../wait_many.ts";
import { resolveRef } from "../../ops/resolve_thread.ts";
import { RelayError } from "../../core/errors.ts";
import { type CallContext, READ_ANNOTATIONS, type Tool, type ToolInputRequired } from "../tool.ts";
import { followForWait, waitOutput } from "../follow_turn.ts";
import { declinedText, explainReadReply } from "../render_reply.ts";
import { type Explained, textOf } from "../next_steps.ts";
import { sentence, sentences } from "../text.ts";

const messageRef = z.strictObject({
  threadId: threadRefItem,
  clientMessageId: clientMessageIdItem,
});

/** The `codex_wait_reply` input: one message (threadId, clientMessageId) or `messages`. */
export const waitReplyInput = z.strictObject({
  threadId: threadRef.optional(),
  clientMessageId: clientMessageId.optional(),
  messages: z.array(messageRef).min(WAIT_MESSAGES.min).max(WAIT_MESSAGES.max).optional()
    .describe("Or several {threadId, clientMessageId}"),
  until: z.enum(WAIT_UNTIL).optional().describe("default any"),
  timeoutSeconds: z.number().int().min(WAIT_SECONDS.min).max(WAIT_SECONDS.max).default(
    WAIT_SECONDS.default,
  ).describe(`Seconds (${WAIT_SECONDS.min}..${WAIT_SECONDS.max})`),
  cursor: cursorInput.optional(),
}).superRefine((v, ctx) => {
  const problem = formProblem(v);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/** Why the arguments mix or miss the two forms, if they do. */
function formProblem(v: z.output<typeof waitReplyInput>): string | undefined {
  const single = v.threadId !== undefined || v.clientMessageId !== undefined ||
    v.cursor !== undefined;
  if (v.messages === undefined) {
    if (v.until !== undefined) return "until goes with messages";
    if (v.threadId === undefined || v.clientMessageId === undefined) {
      return "Give threadId and clientMessageId, or messages";
    }
    return undefined;
  }
  if (single) return "Give messages or threadId/clientMessageId/cursor, not both";
  const dup = duplicateAt(v.messages);
  return dup < 0 ? undefined : `messages[${dup}] repeats an earlier message`;
}

const input = waitReplyInput;

type WaitOutput = WaitReplyResult;
type SingleOutput = WaitMessageResult;

/** The `codex_wait_reply` tool. */
export const waitReplyTool: Tool<typeof input, typeof waitReplySchema> = {
  name: "codex_wait_reply",
  title: "Wait for a reply",
  description:
    "Waits up to timeoutSeconds for every final answer of that turn which took your message, or its end; else timedOut. Follows codex_run turns and their approvals. messages: several at once.",
  inputSchema: input,
  outputSchema: waitReplySchema,
  annotations: READ_ANNOTATIONS,
  enabled: (caps) => caps.replyRead,
  async run(args, ctx): Promise<WaitOutput | ToolInputRequired> {
    if (args.messages) {
      const until = args.until ?? "any";
      return await waitMany({ ...args, messages: args.messages, until }, ctx);
    }
    return await waitOne({
      ...args,
      threadId: args.threadId!,
      clientMessageId: args.clientMessageId!,
    }, ctx);
  },
  explain(out, surface) {
    const turnStart = surface?.caps.turnStart ?? false;
    if (out.messages) return explainMany(out, turnStart);
    return explainOne(out as SingleOutput, turnStart);
  },
};

/** The single-message form, as it always was. */
async function waitOne(
  given: { threadId: string; clientMessageId: string; timeoutSeconds: number; cursor?: string },
  ctx: CallContext,
): Promise<SingleOutput | ToolInputRequired> {
  const threadId = await resolveRef(ctx.connection, given.threadId, ctx.signal);
  if (threadId instanceof RelayError) {
    return { ...unavailableRead(given, threadId.reason), timedOut: false };
  }
  const args = { ...given, threadId };
  const followed = await followForWait(args, ctx);
  if (followed?.kind === "input") return { inputRequired: followed.result };
  if (followed) return waitOutput(followed);
  const onProgress = (p: WaitProgress) =>
    ctx.progress(
      `Waiting for a final answer: read ${p.reads}, ${describe(p)}, ${
        Math.round(p.elapsedMs / 1000)
      } of ${p.timeoutMs / 1000} s`,
      p.reads,
    );
  try {
    return await waitOperation(
      ctx,
      args.timeoutSeconds,
      (s) => waitForReply(s, args, { clock: ctx.connection.clock, onProgress }),
    );
  } catch (error) {
    const { reason } = asRelayError(error);
    ctx.log.warn("wait failed", { reason });
    return { ...unavailableRead(args, reason), timedOut: false };
  }
}

function explainOne(out: SingleOutput, turnStart: boolean): Explained {
  const notes = (out.notes ?? []).map(sentence);
  const pending = out.pendingRequests?.length
    ? `${out.pendingRequests.length} request(s) from Codex wait for your answer: ${
      out.pendingRequests.map((p) => p.summary).join("; ")
    }.`
    : "";
  const again = "Call codex_wait_reply again to keep waiting.";
  const read = explainReadReply(out, {
    keepWaiting: out.timedOut
      ? `The wait timed out; call codex_wait_reply again to keep waiting.`
      : again,
    turnStart,
  });
  const next = pending
    ? "Call codex_wait_reply again to answer them."
    : out.timedOut && out.status === "no_match"
    ? "The wait timed out; call codex_wait_reply again to keep waiting."
    : read.next;
  const failed = out.error ? sentence(`The run failed: ${out.error}`) : "";
  return {
    said: sentences(
      read.said.trim(),
      failed,
      ...notes,
      pending,
      declinedText(out.declinedRequests),
    ),
    next,
  };
}

/** Several messages: the count, then each message's text in order. */
function explainMany(out: WaitOutput, turnStart: boolean): Explained {
  const all = out.messages ?? [];
  const head = `${out.done} of ${all.length} final (until ${out.until}).`;
  const each = all.map((m, i) => `[${i + 1}] ${textOf(explainOne(m, turnStart))}`);
  const open = all.filter((m) => m.timedOut).length;
  const asking = all.filter((m) => m.pendingRequests?.length).length;
  return {
    said: [head, ...each].join("\n"),
    next: sentences(
      asking
        ? `${asking} message(s) wait for your answer to Codex's requests: call codex_wait_reply again with the same messages to answer them`
        : "",
      open
        ? `${open} not final: call codex_wait_reply again with the same messages to keep waiting`
        : "All are final: each message's replies are in messages",
    ),
  };
}

/** What the last read saw, without any text. */
function describe(p: WaitProgress): string {
  const last = p.last;
  if (last.status === "observed" && last.turn) return `matched, turn ${last.turn.status}`;
  return last.status === "no_match" ? "message not found yet" : last.status;
}
