/**
 * Every result a tool returns to the client, as one zod schema each (the
 * tools advertise them as their `outputSchema`), the types derived from them,
 * and the status lists the results use. The one source of every shape (the
 * files fields: `files_schema.ts`; the default tools' results, which a start
 * builds without the rest: `thread_schemas.ts`): the tools, the docs tables
 * and the tests read them here. A name means one thing in every result (docs/design.md, "Results"): a turn's status
 * ({@linkcode RESULT_TURN_STATUSES}), `pendingRequests`, `declinedRequests`,
 * `queuedAhead`, `otherRelay`, `activity`. Fields are explained in comments:
 * output schemas are advertised without descriptions (`src/host/tool_schema.ts`).
 * @module
 */

import { z } from "zod";
import { reasonSchema } from "../core/errors.ts";
import { WAIT_UNTIL } from "./wait_set.ts";
import { changedFields } from "./files_schema.ts";
import { cutFields } from "./cut_schema.ts";
import { reviewSchema, structuredSchema, usageSchema } from "./job_schemas.ts";
import { receiptSchema } from "./thread_schemas.ts";
export * from "./job_schemas.ts";
export * from "./thread_schemas.ts";

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
/** One projected final answer. */
export type Reply = z.output<typeof replySchema>;

/**
 * A turn's status in every result: `running` (Codex's `inProgress`), an end,
 * or `unverified` (a read that cannot tell; never a run this relay follows).
 */
export const RESULT_TURN_STATUSES = [
  "running",
  "completed",
  "failed",
  "interrupted",
  "unverified",
] as const;

/** A turn's status in every result (the schema). */
export const observedTurnStatusSchema = z.enum(RESULT_TURN_STATUSES);

/** A turn's status in every result. */
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

/** The result of `codex_read_reply` (its `structuredContent`). */
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

/** Every failure class: why a turn did not complete (`src/turn/classify_failure.ts`). */
export const FAILURE_CLASSES = [
  "capacity",
  "stalled",
  "auth",
  "bad_request",
  "internal",
  "missing_provider_key",
  "unknown",
] as const;

/** Why a turn did not complete. */
export type FailureClass = typeof FAILURE_CLASSES[number];

/** A request of Codex (an approval or an elicitation), as results name it. */
export const requestSummarySchema = z.object({ method: z.string(), summary: z.string() });

/** A request of Codex, as results name it. */
export type RequestSummary = z.output<typeof requestSummarySchema>;

/** Codex's requests that wait for the client's answer (run and wait results). */
const pendingRequestsSchema = z.array(requestSummarySchema).optional();
/** Codex's requests the relay cannot forward (e.g. openai/userVerification): declined at once. */
const declinedRequestsSchema = z.array(requestSummarySchema).optional();

/** A message queued before the run's own whose turn the run's start also started. */
export const queuedAheadSchema = z.object({
  clientMessageId: z.string().nullable(),
  turnId: z.string().nullable(),
});

/** A message queued ahead of the run's own. */
export type QueuedAhead = z.output<typeof queuedAheadSchema>;

/** A thread's MCP server whose tools a turn runs without. */
export const mcpServerSchema = z.object({
  name: z.string(),
  /** failed/cancelled: Codex said so; starting: not ready when the wait ended, or not waited for. */
  status: z.enum(["failed", "cancelled", "starting"]),
  error: z.string().nullable(),
});

/** A server whose tools a turn runs without. */
export type McpServerMissing = z.output<typeof mcpServerSchema>;

/** The turn of a run this relay follows (null when none started; its id null while queued). */
const runTurnSchema = z.object({
  id: z.string().nullable(),
  status: observedTurnStatusSchema.exclude(["unverified"]),
}).nullable();

/** The failure fields of a run. */
export const failureFields = {
  failureClass: z.enum(FAILURE_CLASSES).optional(),
  retryable: z.boolean().optional(),
  retryAfterMs: z.number().optional(),
  error: z.string().optional(),
  fix: z.string().optional(),
};

/** The reply fields of a finished run (reply-read level only). */
export const replyFields = {
  replies: z.array(replySchema).optional(),
  nextCursor: z.string().nullable().optional(),
  review: reviewSchema.optional(),
  structured: structuredSchema.optional(),
};

/** The latest thing Codex reported of a running turn: one line, never content (running only). */
export const activitySchema = z.string().optional();

/** The `codex_run` (and `codex_review`) result. */
export const runOutput = z.object({
  receipt: receiptSchema,
  threadId: z.string(),
  turn: runTurnSchema,
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  ...failureFields,
  pendingRequests: pendingRequestsSchema,
  declinedRequests: declinedRequestsSchema,
  queuedAhead: z.array(queuedAheadSchema).optional(),
  notes: z.array(z.string()).optional(),
  activity: activitySchema,
  /** The thread's MCP servers the turn runs without: failed, or not ready when it started. */
  mcpServers: z.array(mcpServerSchema).optional(),
  /** The turn's token usage (so far), when Codex told any: absent, never zero, when it told none. */
  usage: usageSchema.optional(),
  ...replyFields,
  ...changedFields,
  ...cutFields,
});

/** The `codex_run` result. */
export type RunResult = z.output<typeof runOutput>;

/** The `codex_compact` result: a run's, without the message's fields (a compaction has none). */
export const compactOutput = runOutput.pick({
  receipt: true,
  threadId: true,
  turn: true,
  reason: true,
  message: true,
  failureClass: true,
  retryable: true,
  retryAfterMs: true,
  error: true,
  notes: true,
  usage: true,
});

/**
 * `codex_interrupt` statuses: `withdrawn` (a queued message deleted, confirmed),
 * `unknown` (a delete whose answer was lost), `unavailable` (nothing done, see `reason`).
 */
export const INTERRUPT_STATUSES = [
  "interrupted",
  "ended",
  "withdrawn",
  "not_running",
  "unknown",
  "unavailable",
] as const;

/** The `codex_interrupt` result. */
export const interruptOutput = z.object({
  status: z.enum(INTERRUPT_STATUSES),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  threadId: z.string(),
  turn: runTurnSchema,
  failureClass: failureFields.failureClass,
  error: failureFields.error,
  ...replyFields,
});

/** The `codex_interrupt` result. */
export type InterruptResult = z.output<typeof interruptOutput>;

/** One message's `codex_wait_reply` result: a `codex_read_reply` result plus `timedOut`. */
export const waitMessageSchema = readReplySchema.extend({
  timedOut: z.boolean(),
  pendingRequests: pendingRequestsSchema,
  notes: z.array(z.string()).optional(),
  activity: activitySchema,
  declinedRequests: declinedRequestsSchema,
  /** How the followed run failed (its known end), when it did. */
  error: z.string().optional(),
  ...changedFields,
  ...cutFields,
  /** A followed run's token usage, when Codex told any. */
  usage: usageSchema.optional(),
});

/** One message's `codex_wait_reply` result. */
export type WaitMessageResult = z.output<typeof waitMessageSchema>;

/**
 * The `codex_wait_reply` result (one object schema for both forms): one
 * message's result, or `{until, done, messages}` on several.
 */
export const waitReplySchema = waitMessageSchema.partial().extend({
  until: z.enum(WAIT_UNTIL).optional(),
  done: z.number().int().optional(),
  messages: z.array(waitMessageSchema).optional(),
});

/** The `codex_wait_reply` result. */
export type WaitReplyResult = z.output<typeof waitReplySchema>;

/** `codex_steer` statuses. */
export const STEER_STATUSES = [
  "steered",
  "not_running",
  "not_steerable",
  "turn_changed",
  "unknown",
  "unavailable",
] as const;

/** The `codex_steer` result. */
export const steerOutput = z.object({
  status: z.enum(STEER_STATUSES),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  threadId: z.string(),
  /** The steered input's id (steered, unknown): codex_wait_reply reads the turn's answer by it. */
  clientMessageId: z.string().optional(),
  turnId: z.string().optional(),
  /** A run that cannot be steered: its kind (review). */
  kind: z.string().optional(),
});

/** The `codex_steer` result. */
export type SteerResult = z.output<typeof steerOutput>;

/** Withdraw statuses; `unavailable`: nothing was deleted (see `reason`). */
export const WITHDRAW_STATUSES = [
  "withdrawn",
  "not_found",
  "already_taken",
  "unknown",
  "unavailable",
] as const;

/** The `codex_withdraw_message` result. */
export const withdrawSchema = z.object({
  status: z.enum(WITHDRAW_STATUSES),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  threadId: z.string(),
  clientMessageId: z.string(),
});

/** The `codex_withdraw_message` result. */
export type WithdrawResult = z.output<typeof withdrawSchema>;
