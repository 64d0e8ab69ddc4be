/**
 * `codex_wait_reply` (with `--allow-reply-read`): waits on one message, or
 * on 1..16 with `messages` (the single form is the list of one), with the
 * wait engine (`src/turn/wait_engine.ts`): a message whose turn this relay
 * runs is followed, the others are read again and again, until a final
 * answer, the turn's end, or the wait time (1..55 s) is up.
 * @module
 */

import { z } from "zod";
import { unavailableRead } from "../../reply/read_result.ts";
import {
  type WaitMessageResult,
  type WaitReplyResult,
  waitReplySchema,
} from "../../reply/schemas.ts";
import { WAIT_SECONDS } from "../../turn/wait_pacing.ts";
import { waitReplyWorktreeSchema } from "./run_worktree.ts";
import {
  clientMessageId,
  clientMessageIdItem,
  cursorInput,
  threadRef,
  threadRefItem,
} from "../../reply/inputs.ts";
import {
  duplicateAt,
  mergeResults,
  WAIT_MESSAGES,
  WAIT_UNTIL,
  type WaitMessageRef,
} from "../../reply/wait_set.ts";
import { waitResult } from "../../turn/run_result.ts";
import { locateMessage } from "../../turn/turn_attach.ts";
import type { TurnRuntime } from "../../turn/turn_runtime.ts";
import type { WaitEntry } from "../../turn/wait_engine.ts";
import { retriedRound, waitInCall } from "../wait_call.ts";
import { resolveRef } from "../../ops/resolve_thread.ts";
import { RelayError } from "../../core/errors.ts";
import {
  type CallContext,
  READ_ANNOTATIONS,
  type Tool,
  type ToolInputRequired,
  ToolRefusal,
} from "../tool.ts";
import { declinedText, explainReadReply, NO_MATCH_MEANS, pendingText } from "../render_reply.ts";
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

/** The `codex_wait_reply` tool. */
export const waitReplyTool: Tool<typeof waitReplyInput, typeof waitReplyWorktreeSchema> = {
  name: "codex_wait_reply",
  title: "Wait for a reply",
  description: (surface) =>
    `Waits up to timeoutSeconds for every final answer of that turn which took your message, or its end; else timedOut.${
      surface.caps.turnStart ? " Follows codex_run turns and their approvals." : ""
    } messages: several at once.`,
  inputSchema: waitReplyInput,
  outputSchema: waitReplyWorktreeSchema,
  outputSchemaAt: (caps) => caps.worktrees ? waitReplyWorktreeSchema : waitReplySchema,
  annotations: READ_ANNOTATIONS,
  enabled: (caps) => caps.replyRead,
  run: waitMessages,
  explain(out, surface) {
    const turnStart = surface?.caps.turnStart ?? false;
    if (out.messages) return explainMany(out, turnStart);
    return explainOne(out as WaitMessageResult, turnStart);
  },
};

/**
 * Waits on the messages named: one (threadId, clientMessageId), rendered as it
 * always was, or `messages`, merged. A message whose thread is not found ends
 * at once (`unavailable`); the others wait in one wait of the engine.
 */
async function waitMessages(
  args: z.output<typeof waitReplyInput>,
  ctx: CallContext,
): Promise<WaitReplyResult | ToolInputRequired> {
  const many = args.messages !== undefined;
  const named = args.messages ??
    [{ threadId: args.threadId!, clientMessageId: args.clientMessageId! }];
  const refs: WaitMessageRef[] = [];
  const entries: WaitEntry<TurnRuntime>[] = [];
  for (const m of named) {
    const found = await resolveRef(ctx.connection, m.threadId, ctx.signal);
    const id = {
      threadId: found instanceof RelayError ? m.threadId : found,
      clientMessageId: m.clientMessageId,
    };
    const ref = { ...id, ...(args.cursor === undefined ? {} : { cursor: args.cursor }) };
    const read = found instanceof RelayError ? unavailableRead(ref, found.reason) : undefined;
    refs.push(id);
    entries.push(read ? { ref, end: { kind: "read", read, final: true } } : { ref });
  }
  if (!many && entries[0].end) return waitResult(entries[0].end);
  // The same message named twice (an id in another case, or by name): refused as a literal repeat.
  const dup = duplicateAt(refs);
  if (dup >= 0) throw new ToolRefusal(`messages[${dup}] repeats an earlier message`);
  const base = {
    v: 1 as const,
    tool: "codex_wait_reply" as const,
    ...refs[0],
    waitSeconds: args.timeoutSeconds,
    ...(many ? { messages: refs } : {}),
  };
  const prior = retriedRound(ctx, base);
  const hints = prior?.runIds ?? [];
  const deps = { connection: ctx.connection, registry: ctx.turns, clock: ctx.clock, log: ctx.log };
  for (const [i, e] of entries.entries()) {
    if (!e.end) {
      entries[i] = await locateMessage(e.ref!, deps, ctx.caps.turnStart, hints, ctx.signal);
    }
  }
  const until = args.until ?? "any";
  const out = await waitInCall(entries, ctx, base, prior, until);
  if ("inputRequired" in out) return out;
  const results = out.ends.map(waitResult);
  return many ? mergeResults(until, results) : results[0];
}

function explainOne(out: WaitMessageResult, turnStart: boolean): Explained {
  const notes = (out.notes ?? []).map(sentence);
  const pending = pendingText(out.pendingRequests);
  const timedOut = "The wait timed out; call codex_wait_reply again to keep waiting.";
  const keepWaiting = out.timedOut ? timedOut : "Call codex_wait_reply again to keep waiting.";
  const read = explainReadReply(out, { keepWaiting, turnStart });
  const next = pending
    ? "Call codex_wait_reply again to answer them."
    : out.timedOut && out.status === "no_match"
    ? `${NO_MATCH_MEANS} ${timedOut}`
    : read.next;
  const failed = out.error ? sentence(`The run failed: ${out.error}`) : "";
  return {
    said: sentences(
      read.said.trim(),
      out.activity ? `Latest from Codex: ${out.activity}` : "",
      failed,
      ...notes,
      pending,
      declinedText(out.declinedRequests),
    ),
    next,
  };
}

/** Several messages: the count, then each message's text in order. */
function explainMany(out: WaitReplyResult, turnStart: boolean): Explained {
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
