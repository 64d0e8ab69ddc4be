/**
 * Reading a review's result (`codex_review`, and `codex_wait_reply` of its
 * `clientMessageId`): the review's own turn R, never its inner turn R' (which
 * Codex stores `interrupted` even when the review succeeded). The rendered
 * review is the `exitedReviewMode` item's `review` (the phase-null agent
 * message of R repeats it); docs/codex-protocol.md, "Code review".
 * @module
 */

import type { Session } from "../connect/connection.ts";
import { parseReview, reviewVerdict } from "../reply/review_text.ts";
import type { ReadReplyResult } from "../reply/schemas.ts";

/** The newest items of the review turn read (R holds three in the captures). */
const REVIEW_ITEMS = 100;

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
  const parsed = text === undefined ? undefined : parseReview(text);
  const ended = ref.status !== "running";
  const review = parsed === undefined && !ended
    ? undefined
    : { ...(parsed ?? parseReview("")), ...reviewVerdict(ref.status, parsed) };
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
