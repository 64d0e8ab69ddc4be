/**
 * Assembles the `codex_read_reply` result from what the I/O layer observed.
 * @module
 */

import type { ReasonCode } from "../core/errors.ts";
import type { MatchOutcome } from "./match_user_item.ts";
import type { ObservedTurnStatus, ReadReplyResult, Reply } from "./schemas.ts";

/** The operation could not observe anything. */
export interface Unavailable {
  /** Discriminant. */
  kind: "unavailable";
  /** Why: `thread_not_found`, `legacy_history`, `timeout`, `protocol_error`, `invalid_cursor`, ... */
  reason: ReasonCode;
}

/** Not among the items searched, but in the thread's queue. */
export interface InQueue {
  /** Discriminant. */
  kind: "queued";
  /** Whether a Codex turn runs on the thread now (the message runs after it). */
  turnRunning: boolean;
}

/** Neither in the thread's queue nor among any of its items (the whole thread was searched). */
export interface NotFound {
  /** Discriminant. */
  kind: "not_found";
}

/** What the I/O layer hands to {@linkcode buildReadResult}. */
export interface ReadResultInput {
  /** The thread, as requested. */
  threadId: string;
  /** The message id, as requested. */
  clientMessageId: string;
  /** The match outcome, where the queue says the message is, or why nothing could be observed. */
  match: MatchOutcome | Unavailable | InQueue | NotFound;
  /** The matched turn's status; `unverified` when absent. Used only when observed. */
  turnStatus?: ObservedTurnStatus;
  /** The projected replies. Used only when observed. */
  replies?: readonly Reply[];
  /** The encoded reply cursor. Used only when observed. */
  nextCursor?: string | null;
  /** The encoded search cursor. Used only with no_match. */
  searchCursor?: string | null;
}

/**
 * The result of a read of message `of` that observed nothing, and why: the
 * one shape every failed read, wait and lookup answers with.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const read = unavailableRead({ threadId: "t", clientMessageId: "m" }, "timeout");
 * assert.equal(read.status, "unavailable");
 * ```
 */
export function unavailableRead(
  of: { threadId: string; clientMessageId: string },
  reason: ReasonCode,
): ReadReplyResult {
  const scope = { threadId: of.threadId, clientMessageId: of.clientMessageId };
  return buildReadResult({ ...scope, match: { kind: "unavailable", reason } });
}

/**
 * Builds the `codex_read_reply` result. Whatever the input carries, only
 * `observed` carries replies, a turn and `nextCursor`; only `no_match` carries
 * `searchCursor`; `ambiguous` and `unavailable` never carry text.
 */
export function buildReadResult(input: ReadResultInput): ReadReplyResult {
  const base = {
    threadId: input.threadId,
    clientMessageId: input.clientMessageId,
    turn: null,
    replies: [],
    nextCursor: null,
    searchCursor: null,
  };
  const match = input.match;
  switch (match.kind) {
    case "observed":
      return {
        status: "observed",
        ...base,
        association: "same_turn_not_exclusive",
        turn: { id: match.turnId, status: input.turnStatus ?? "unverified" },
        replies: (input.replies ?? []).map(copyReply),
        nextCursor: input.nextCursor ?? null,
      };
    case "no_match":
      return { status: "no_match", ...base, searchCursor: input.searchCursor ?? null };
    case "queued":
      return { status: "queued", ...base, turnRunning: match.turnRunning };
    case "not_found":
      return { status: "not_found", ...base };
    case "ambiguous":
      return { status: "ambiguous", ...base };
    case "unavailable":
      return { status: "unavailable", reason: match.reason, ...base };
  }
}

/** A copy of a reply with only the fields of its kind (a moderated reply never carries text). */
function copyReply(r: Reply): Reply {
  if ("moderated" in r) {
    return {
      itemId: r.itemId,
      moderated: true,
      ...(r.replacement === undefined ? {} : { replacement: r.replacement }),
      ...(r.blockReason === undefined ? {} : { blockReason: r.blockReason }),
    };
  }
  const t = r as { itemId: string; text: string; truncated: boolean };
  return { itemId: t.itemId, text: t.text, truncated: t.truncated };
}
