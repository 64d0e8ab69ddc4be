/**
 * Reading a review's result (`codex_review`, and `codex_wait_reply` of its
 * `clientMessageId`): the review's own turn R, never its inner turn R' (which
 * Codex stores `interrupted` even when the review succeeded). The rendered
 * review is the `exitedReviewMode` item's `review` (the phase-null agent
 * message of R repeats it); the reviewer's own answer (its JSON) is the final
 * answer of its sub-agent thread's turn under R; docs/codex-protocol.md,
 * "Code review".
 * @module
 */

import type { Session } from "../connect/connection.ts";
import {
  parseReviewerAnswer,
  type ReviewerAnswer,
  reviewResult,
  reviewVerdict,
} from "../reply/review_text.ts";
import type { ReadReplyResult } from "../reply/schemas.ts";

/** The newest items of the review turn read (R holds three in the captures). */
const REVIEW_ITEMS = 100;
/** The newest review sub-agent threads searched for the reviewer's (the newest is it). */
const REVIEWER_THREADS = 25;
/** The reviewer threads of this thread whose turns are read, newest first. */
const REVIEWER_CANDIDATES = 3;

/** What the review run knows of itself. */
export interface ReviewRef {
  threadId: string;
  /** The id the relay minted for the review (Codex takes none). */
  clientMessageId: string;
  /** The review turn R (`review/start`'s `turn.id`). */
  turnId: string;
  /** How R ended, as the run followed it. */
  status: "completed" | "failed" | "interrupted" | "running";
}

/**
 * Reads the review turn's rendered review and its verdict (failing closed,
 * `reviewVerdict`). `review` is absent only while R runs and holds none; an
 * ended review without one is `{text: "", verdict: "failed"}`. The result has
 * no `replies`: a review's text is its `review`.
 *
 * @example
 * ```ts ignore
 * const read = await readReview(session, { threadId, clientMessageId, turnId, status: "completed" });
 * read.review?.findings;
 * ```
 */
export async function readReview(session: Session, ref: ReviewRef): Promise<ReadReplyResult> {
  const page = await session.call("thread/items/list", {
    threadId: ref.threadId,
    turnId: ref.turnId,
    sortDirection: "desc",
    limit: REVIEW_ITEMS,
  });
  const exited = page.data.find((e) =>
    e.turnId === ref.turnId && e.item.type === "exitedReviewMode"
  );
  const text = typeof exited?.item.review === "string" ? exited.item.review : undefined;
  const ended = ref.status !== "running";
  const answer = ref.status === "completed" && text !== undefined
    ? await reviewerAnswer(session, ref)
    : undefined;
  const review = text === undefined && !ended
    ? undefined
    : { ...reviewResult(text ?? "", answer), ...reviewVerdict(ref.status, text, answer) };
  return {
    status: "observed",
    threadId: ref.threadId,
    clientMessageId: ref.clientMessageId,
    association: "same_turn_not_exclusive",
    turn: { id: ref.turnId, status: ref.status },
    replies: [],
    nextCursor: null,
    searchCursor: null,
    ...(review === undefined ? {} : { review }),
  };
}

/**
 * What a review run's result says when its review could not be read (its
 * connection ended with it, or the read failed): no text, no findings, and a
 * verdict that fails closed (`run_failed` for a failed run, else `no_review`).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const read = unreadReview({ threadId: "t", clientMessageId: "c", turnId: "R", status: "failed" });
 * assert.equal(read.review?.verdictReason, "run_failed");
 * ```
 */
export function unreadReview(
  ref: Omit<ReviewRef, "turnId"> & { turnId: string | null },
): ReadReplyResult {
  const review = { ...reviewResult("", undefined), ...reviewVerdict(ref.status, undefined, null) };
  return {
    status: "observed",
    threadId: ref.threadId,
    clientMessageId: ref.clientMessageId,
    association: "same_turn_not_exclusive",
    turn: ref.turnId === null ? null : { id: ref.turnId, status: ref.status },
    replies: [],
    nextCursor: null,
    searchCursor: null,
    review,
  };
}

/**
 * The reviewer's answer to review turn R (0.169, 0.171; captures 46): the
 * final answer of the turn under R on a `subAgentReview` thread whose parent
 * is the review's thread, parsed as the review JSON (null: it is not);
 * undefined when no such answer is found.
 */
async function reviewerAnswer(
  session: Session,
  ref: ReviewRef,
): Promise<ReviewerAnswer | null | undefined> {
  const list = await session.call("thread/list", {
    sourceKinds: ["subAgentReview"],
    limit: REVIEWER_THREADS,
  });
  const mine = list.data.filter((t) => t.parentThreadId === ref.threadId);
  for (const sub of mine.slice(0, REVIEWER_CANDIDATES)) {
    const turns = await session.call("thread/turns/list", {
      threadId: sub.id,
      limit: 5,
      itemsView: "notLoaded",
    });
    const turn = turns.data.find((t) => t.rootTurnId === ref.turnId);
    if (turn === undefined) continue;
    const items = await session.call("thread/items/list", {
      threadId: sub.id,
      turnId: turn.id,
      sortDirection: "desc",
      limit: REVIEW_ITEMS,
    });
    const final = items.data.find((e) =>
      e.turnId === turn.id && e.item.type === "agentMessage" &&
      (e.item as { phase?: unknown }).phase === "final_answer"
    );
    const raw = (final?.item as { text?: unknown } | undefined)?.text;
    return typeof raw === "string" ? parseReviewerAnswer(raw) : undefined;
  }
  return undefined;
}
