/**
 * The shapes of what the reply tools return: one zod schema each, the types
 * derived from them (the tools advertise these as their `outputSchema`).
 * @module
 */

import { z } from "zod";
import { reasonSchema } from "../core/errors.ts";
import { TURN_STATUSES } from "../codex/types.ts";

/** One projected final answer. */
export const replySchema = z.object({
  /** The agentMessage item id. */
  itemId: z.string(),
  /** Its text, or the prefix of it that fitted the budget. */
  text: z.string(),
  /** Whether the text was cut to fit the budget. */
  truncated: z.boolean(),
});

/** One projected final answer. */
export type Reply = z.output<typeof replySchema>;

/** A turn status as reported to the client; `unverified` when it cannot be told. */
export const observedTurnStatusSchema = z.enum([...TURN_STATUSES, "unverified"]);

/** A turn status as reported to the client; `unverified` when it cannot be told. */
export type ObservedTurnStatus = z.output<typeof observedTurnStatusSchema>;

/** `codex_read_reply` statuses. */
export const READ_REPLY_STATUSES = ["observed", "no_match", "ambiguous", "unavailable"] as const;

/** `codex_read_reply` status. */
export type ReadReplyStatus = typeof READ_REPLY_STATUSES[number];

/** The result of `codex_read_reply` (its `structuredContent`). */
export const readReplySchema = z.object({
  status: z.enum(READ_REPLY_STATUSES).describe("What the read observed"),
  reason: reasonSchema.optional().describe("Why nothing could be observed (unavailable only)"),
  threadId: z.string(),
  clientMessageId: z.string(),
  association: z.literal("same_turn_not_exclusive").optional().describe(
    "Every final answer of the turn that took the message, not a certified answer to it alone",
  ),
  turn: z.object({ id: z.string(), status: observedTurnStatusSchema }).nullable(),
  replies: z.array(replySchema),
  nextCursor: z.string().nullable().describe("More replies of the matched turn"),
  searchCursor: z.string().nullable().describe("Older items to search (no_match only)"),
});

/** The `codex_read_reply` result. */
export type ReadReplyResult = z.output<typeof readReplySchema>;
