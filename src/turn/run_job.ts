/**
 * What a run does, beyond "a message queued and started" (`codex_run`): one
 * kind per job, as a union. The kind decides how the run starts
 * (`load_and_send.ts`), how its own turn is told (a review's is `review/start`'s
 * turn R), how it is interrupted (a review: R, else its inner turn R'), whether
 * it can be steered, and what is read when it ends.
 * @module
 */

import type { ReviewTarget } from "../codex/methods.ts";
import type { Session } from "../connect/connection.ts";
import { readReply } from "../ops/read_reply.ts";
import { readReview } from "../ops/read_review.ts";
import type { ObservedTurnStatus, ReadReplyResult } from "../reply/schemas.ts";
import { structuredAnswer } from "../reply/structured.ts";

/** The job of a run. */
export type RunJob =
  /** codex_run: the message queued, then started (`thread/queue/start`). */
  | { kind: "message" }
  /** codex_run with outputSchema: `turn/start` on an idle thread; the answer is checked. */
  | { kind: "structured"; schema: Record<string, unknown> }
  /** codex_review: `review/start`; the relay mints the clientMessageId (Codex takes none). */
  | { kind: "review"; target: ReviewTarget }
  /** codex_compact: `thread/compact/start`; its turn is the next one the thread starts. */
  | { kind: "compact" };

const NO_REPLIES = {
  status: "observed" as const,
  replies: [],
  nextCursor: null,
  searchCursor: null,
};

/** The job of a plain `codex_run`. */
export const MESSAGE_JOB: RunJob = Object.freeze({ kind: "message" });

/**
 * What a finished run's result carries (reply-read level): the final answers
 * of its message's turn; for a structured run also `structured`, the last
 * final answer against the schema (cut text is not JSON: `valid: false`); for
 * a review only `review`, read from R.
 *
 * @example
 * ```ts ignore
 * const read = await settledRead(session, { kind: "message" }, runtime.snapshot());
 * ```
 */
export async function settledRead(
  session: Session,
  job: RunJob,
  snapshot: { threadId: string; clientMessageId: string; turnId: string | null; phase: string },
): Promise<ReadReplyResult> {
  const { threadId, clientMessageId, turnId } = snapshot;
  if (job.kind === "review") {
    if (turnId === null) throw new Error("a review run without its turn");
    const phase = snapshot.phase;
    const status: ObservedTurnStatus = phase === "completed" || phase === "failed" ||
        phase === "interrupted"
      ? phase
      : "running";
    return await readReview(session, { threadId, clientMessageId, turnId, status });
  }
  if (job.kind === "compact") {
    // A compaction's turn has no user message and no answer: its end is its result.
    const phase = snapshot.phase;
    const status: ObservedTurnStatus = phase === "completed" || phase === "failed" ||
        phase === "interrupted"
      ? phase
      : "running";
    const turn = turnId === null ? null : { id: turnId, status };
    return { ...NO_REPLIES, threadId, clientMessageId, turn };
  }
  const read = await readReply(session, { threadId, clientMessageId });
  if (job.kind !== "structured") return read;
  const last = read.replies.at(-1);
  if (!last || "moderated" in last) {
    const why = last ? "the final answer was moderated by Codex" : "the turn has no final answer";
    return { ...read, structured: { valid: false, error: why } };
  }
  const structured = last.truncated
    ? { valid: false as const, error: "the final answer is longer than the 16 KiB page bound" }
    : structuredAnswer(job.schema, last.text);
  return { ...read, structured };
}
