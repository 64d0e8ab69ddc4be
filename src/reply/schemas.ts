/**
 * The shapes of what the reply tools return: one zod schema each, the types
 * derived from them (the tools advertise these as their `outputSchema`).
 * @module
 */

import { z } from "zod";
import { reasonSchema } from "../core/errors.ts";
import { TURN_STATUSES } from "../codex/types.ts";

/** One projected final answer whose text may be disclosed. */
export const textReplySchema = z.strictObject({
  /** The agentMessage item id. */
  itemId: z.string(),
  /** Its text, or the prefix of it that fitted the budget. */
  text: z.string(),
  /** Whether the text was cut to fit the budget. */
  truncated: z.boolean(),
});

/**
 * A final answer Codex moderated: its text is never disclosed. Where Codex
 * names one, the kind of text it shows instead (`replacement`, 0.171 `hide`)
 * or the kind of reason it blocked it (`blockReason`, 0.171 `block`).
 */
export const moderatedReplySchema = z.strictObject({
  /** The agentMessage item id. */
  itemId: z.string(),
  /** Codex moderated this answer: its text is withheld and never returned. */
  moderated: z.literal(true),
  /** The kind of text Codex shows in its place (Codex hide), e.g. wellbeingPromptHelpline. */
  replacement: z.string().optional(),
  /** The kind of reason Codex blocked it for (Codex block), e.g. protection or cyber. */
  blockReason: z.string().optional(),
});

/** One final answer: its text, or (moderated by Codex) no text at all. */
export const replySchema = z.union([textReplySchema, moderatedReplySchema]);

/** One projected final answer whose text may be disclosed. */
export type TextReply = z.output<typeof textReplySchema>;
/** A final answer whose text is withheld. */
export type ModeratedReply = z.output<typeof moderatedReplySchema>;
/** One projected final answer. */
export type Reply = z.output<typeof replySchema>;

/** A turn status as reported to the client; `unverified` when it cannot be told. */
export const observedTurnStatusSchema = z.enum([...TURN_STATUSES, "unverified"]);

/** A turn status as reported to the client; `unverified` when it cannot be told. */
export type ObservedTurnStatus = z.output<typeof observedTurnStatusSchema>;

/** `codex_read_reply` statuses. */
export const READ_REPLY_STATUSES = [
  "observed",
  "no_match",
  "queued",
  "not_found",
  "ambiguous",
  "unavailable",
] as const;

/** `codex_read_reply` status. */
export type ReadReplyStatus = typeof READ_REPLY_STATUSES[number];

/** One finding of a review (`src/reply/review_text.ts`). */
export const reviewFindingSchema = z.object({
  priority: z.number().int().nullable(),
  title: z.string(),
  file: z.string(),
  lineStart: z.number().int(),
  lineEnd: z.number().int(),
  body: z.string(),
});

/** A review: the rendered text (bounded) and the findings parsed from it. */
export const reviewSchema = z.object({
  text: z.string(),
  findings: z.array(reviewFindingSchema),
  truncated: z.boolean(),
});

/** A structured answer checked against its schema (`src/reply/structured.ts`). */
export const structuredSchema = z.union([
  z.object({ valid: z.literal(true), value: z.unknown() }),
  z.object({ valid: z.literal(false), error: z.string() }),
]);

/**
 * The result of `codex_read_reply` (its `structuredContent`). Its fields are
 * explained in comments, not `describe()`: output schemas are advertised
 * without descriptions (`src/host/tool_schema.ts`; the tool description
 * explains the result).
 */
export const readReplySchema = z.object({
  /** What the read observed. */
  status: z.enum(READ_REPLY_STATUSES),
  /** Why nothing could be observed (unavailable only). */
  reason: reasonSchema.optional(),
  threadId: z.string(),
  clientMessageId: z.string(),
  /** Every final answer of the turn that took the message, not a certified answer to it alone. */
  association: z.literal("same_turn_not_exclusive").optional(),
  /** The matched turn (observed only). */
  turn: z.object({ id: z.string(), status: observedTurnStatusSchema }).nullable(),
  replies: z.array(replySchema),
  /** More replies of the matched turn. */
  nextCursor: z.string().nullable(),
  /** Older items to search (no_match only). */
  searchCursor: z.string().nullable(),
  /** A review's rendered text and its findings (a codex_review run of this relay only). */
  review: reviewSchema.optional(),
  /** The final answer against the run's outputSchema (a codex_run with one, of this relay only). */
  structured: structuredSchema.optional(),
  /** Whether a Codex turn runs on the thread now, which starts the message after it (queued only). */
  turnRunning: z.boolean().optional(),
});

/** The `codex_read_reply` result. */
export type ReadReplyResult = z.output<typeof readReplySchema>;
