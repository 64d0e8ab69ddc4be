/**
 * `codex_read_reply` (with `--allow-reply-read`): the stored final answers of
 * the turn that took a queued message. The result schema and its rendering
 * live here; `codex_wait_reply` extends them.
 * @module
 */

import { z } from "zod";
import { MAX_CURSOR_TEXT_CHARS } from "../../reply/cursor.ts";
import { readReply } from "../../reply/read_reply.ts";
import { buildReadResult, type ReadReplyResult } from "../../reply/read_result.ts";
import { reasonSchema, threadId } from "../schemas.ts";
import type { Annotations, Tool } from "../tool.ts";

/** Longest `clientMessageId`, in UTF-16 code units (as cursors carry it). */
export const MAX_CLIENT_MESSAGE_ID_CHARS = 200;

/** A `clientMessageId`: 1..200 characters, no control characters, no lone surrogates. */
export const clientMessageId = z.string().min(1).max(MAX_CLIENT_MESSAGE_ID_CHARS).superRefine(
  (s, ctx) => {
    if (/\p{Cc}/u.test(s) || !s.isWellFormed()) {
      ctx.addIssue({
        code: "custom",
        message: "The clientMessageId has control or invalid characters",
      });
    }
  },
).describe("The clientMessageId of the codex_queue_message receipt");

/** A cursor of an earlier result. */
export const cursorInput = z.string().min(1).max(MAX_CURSOR_TEXT_CHARS).describe(
  "nextCursor (more replies of the matched turn) or searchCursor (older items) of an earlier result for the same thread and message",
);

/** One final answer: its text, or (moderated by Codex) no text at all. */
export const replySchema = z.union([
  z.strictObject({ itemId: z.string(), text: z.string(), truncated: z.boolean() }),
  z.strictObject({
    itemId: z.string(),
    moderated: z.literal(true).describe(
      "Codex moderated this answer: its text is withheld and never returned",
    ),
    replacement: z.string().optional().describe(
      "The kind of text Codex shows in its place (Codex hide), e.g. wellbeingPromptHelpline",
    ),
    blockReason: z.string().optional().describe(
      "The kind of reason Codex blocked it for (Codex block), e.g. protection or cyber",
    ),
  }),
]);

/** The result of `codex_read_reply` (`ReadReplyResult`), the one schema of it. */
export const readReplySchema = z.object({
  status: z.enum(["observed", "no_match", "ambiguous", "unavailable"]),
  reason: reasonSchema.optional(),
  threadId: z.string(),
  clientMessageId: z.string(),
  association: z.literal("same_turn_not_exclusive").optional().describe(
    "Every final answer of the turn that took the message, not a certified answer to it alone",
  ),
  turn: z.object({
    id: z.string(),
    status: z.enum(["inProgress", "completed", "failed", "interrupted", "unverified"]),
  }).nullable(),
  replies: z.array(replySchema),
  nextCursor: z.string().nullable(),
  searchCursor: z.string().nullable(),
});

/** Annotations of both read tools: read-only, idempotent, closed world. */
export const READ_ANNOTATIONS: Annotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

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
    const scope = { threadId: args.threadId, clientMessageId: args.clientMessageId };
    if (!ctx.caps.replyRead) {
      return buildReadResult({ ...scope, match: { kind: "unavailable", reason: "not_allowed" } });
    }
    try {
      return await ctx.owner.operation((s) => readReply(s, args), {
        signal: ctx.signal,
        label: "read",
      });
    } catch (error) {
      ctx.log.warn("read failed", { error: error instanceof Error ? error.name : "unknown" });
      return buildReadResult({
        ...scope,
        match: { kind: "unavailable", reason: "protocol_error" },
      });
    }
  },
  render: renderReadReply,
};

const STATUS_TEXT: Record<string, string> = {
  inProgress: "in progress",
  completed: "completed",
  failed: "failed",
  interrupted: "interrupted",
  unverified:
    "status unverified: it may be running in another Codex process, or be older than the newest 50 turns",
};

const REASON_TEXT: Record<string, string> = {
  thread_not_found: "No Codex thread has this id.",
  legacy_history:
    "The thread is stored in Codex's legacy history mode, whose items cannot be read by id.",
  invalid_cursor:
    "The cursor does not continue this thread and message, or its user message changed; read again without a cursor.",
  timeout: "Codex did not answer within the time allowed.",
  output_limit: "Codex wrote a frame longer than 1 MiB.",
  busy: "Every Codex helper was busy; try again shortly.",
  cancelled: "The call was cancelled.",
  codex_missing: "The codex executable was not found on PATH.",
  spawn_failed: "The codex app-server could not be started.",
  experimental_unavailable: "This Codex does not offer the read methods the relay needs.",
  not_allowed: "Reply reading is not enabled (--allow-reply-read).",
};

/** One reply as text: its quoted text, or what Codex's moderation says in its place. */
export function replyText(r: z.output<typeof replySchema>): string {
  if ("moderated" in r) {
    const why = r.blockReason
      ? `, blocked (${r.blockReason})`
      : r.replacement
      ? `, replaced by Codex (${r.replacement})`
      : "";
    return `(withheld: Codex moderated this answer${why}; its text is not returned)`;
  }
  return `${JSON.stringify(r.text)}${r.truncated ? " (truncated)" : ""}`;
}

/** One paragraph telling what a read found. */
export function renderReadReply(out: z.output<typeof readReplySchema>): string {
  const about = `message ${out.clientMessageId} in thread ${out.threadId}`;
  switch (out.status) {
    case "observed": {
      const turn = out.turn ? `turn ${out.turn.id} (${STATUS_TEXT[out.turn.status]})` : "a turn";
      const replies = out.replies.length === 0
        ? "It has no final answer yet."
        : `${out.replies.length} final answer(s): ${
          out.replies.map((r) => `[${r.itemId}] ${replyText(r)}`).join("; ")
        }.`;
      const more = out.nextCursor
        ? " More may follow: pass nextCursor as cursor (with codex_read_reply, refresh: true rescans the turn from its start)."
        : "";
      return `Observed: the ${about} was taken by ${turn}. ${replies} Association same_turn_not_exclusive: these are all final answers of the turn that took the message, not a certified answer to it alone.${more}`;
    }
    case "no_match":
      return `No match: no user message carries clientMessageId ${out.clientMessageId} among the items searched in thread ${out.threadId}; it may still be queued, or be older.${
        out.searchCursor
          ? " To search older items, pass searchCursor as cursor."
          : " There are no older items."
      }`;
    case "ambiguous":
      return `Ambiguous: several user messages in thread ${out.threadId} carry clientMessageId ${out.clientMessageId}, so no reply text is returned.`;
    case "unavailable":
      return `Unavailable (${out.reason}): ${
        REASON_TEXT[out.reason ?? ""] ?? "Codex could not be read."
      } No reply text is returned for the ${about}.`;
  }
}
