/**
 * What a run does, beyond "a message queued and started" (`codex_run`): one
 * kind per job, as a union, and one record per kind ({@linkcode jobKind}):
 * what it sends (`load_and_send.ts`), how its own turn is told (a review's is
 * the turn R its start answered: interrupted by R, then its inner turn R'),
 * whether it can be steered, and what is read when it ends.
 * @module
 */

import type { ImageInput, ReviewTarget } from "../codex/methods.ts";
import type { Session } from "../connect/connection.ts";
import { readReply } from "../ops/read_reply.ts";
import { readReview, unreadReview } from "../ops/read_review.ts";
import type { ObservedTurnStatus, ReadReplyResult } from "../reply/schemas.ts";
import { schemaProblem, structuredChecker } from "./start_checks.ts";

/** The job of a run. */
export type RunJob =
  /** codex_run: the message queued, then started (`thread/queue/start`). */
  | { kind: "message" }
  /**
   * codex_run with images: `turn/start` of the text and images on an idle thread (a
   * queued message would carry each image as a data URL in every frame that echoes it).
   */
  | { kind: "images"; images: ImageInput[] }
  /** codex_run with outputSchema: `turn/start` on an idle thread; the answer is checked. */
  | { kind: "structured"; schema: Record<string, unknown>; images?: ImageInput[] }
  /** codex_review: `review/start`; the relay mints the clientMessageId (Codex takes none). */
  | { kind: "review"; target: ReviewTarget }
  /** codex_compact: `thread/compact/start`; its turn is the next one the thread starts. */
  | { kind: "compact" };

/** The job of a plain `codex_run`. */
export const MESSAGE_JOB: RunJob = Object.freeze({ kind: "message" });

/** What a run sends with its job. */
export interface Outgoing {
  threadId: string;
  clientMessageId: string;
  text: string;
}

/** What a finished run was, as its read needs it. */
export interface SettledSnapshot {
  threadId: string;
  clientMessageId: string;
  turnId: string | null;
  phase: string;
}

/** What a kind of job does. */
export interface JobKind<J extends RunJob = RunJob> {
  /**
   * What it sends: `"queue"`, its message into the thread's queue (a busy
   * thread runs it after what runs there; a paused queue is restarted for
   * it); else its own turn, started on an idle thread only (resolves with
   * the turn's id when the start answers one).
   */
  readonly sends: "queue" | ((session: Session, job: J, out: Outgoing) => Promise<string | null>);
  /**
   * How its own turn is told: by its user message (`message`: the
   * clientMessageId), as the start answered (`claimed`: an interrupt then
   * names only that turn and the turn inside it), or as the next turn the
   * idle thread starts (`next`).
   */
  readonly ownTurn: "message" | "claimed" | "next";
  /** Why `codex_steer` cannot steer its turn, when it cannot. */
  readonly notSteerable?: string;
  /** Why the job cannot be sent as given (checked before anything runs). */
  problem(job: J): Promise<string | undefined> | undefined;
  /** What a finished run's result carries (reply-read level). */
  read(session: Session, job: J, snapshot: SettledSnapshot): Promise<ReadReplyResult>;
  /** What it carries when that could not be read (its connection ended with it); none by default. */
  unread?(snapshot: SettledSnapshot): ReadReplyResult;
}

const KINDS: { readonly [K in RunJob["kind"]]: JobKind<Extract<RunJob, { kind: K }>> } = {
  message: {
    sends: "queue",
    ownTurn: "message",
    problem: () => undefined,
    read: (session, _job, { threadId, clientMessageId }) =>
      readReply(session, { threadId, clientMessageId }),
  },
  images: {
    sends: (session, job, { threadId, clientMessageId, text }) =>
      session.call("turn/start", {
        threadId,
        clientUserMessageId: clientMessageId,
        input: [{ type: "text", text, text_elements: [] }, ...job.images],
      }),
    ownTurn: "message",
    problem: () => undefined,
    read: (session, _job, { threadId, clientMessageId }) =>
      readReply(session, { threadId, clientMessageId }),
  },
  structured: {
    sends: (session, job, { threadId, clientMessageId, text }) =>
      session.call("turn/start", {
        threadId,
        clientUserMessageId: clientMessageId,
        input: [{ type: "text", text, text_elements: [] }, ...(job.images ?? [])],
        outputSchema: job.schema,
      }),
    ownTurn: "message",
    problem: (job) => schemaProblem(job.schema),
    read: readStructured,
  },
  review: {
    sends: (session, job, { threadId }) =>
      session.call("review/start", { threadId, target: job.target }),
    ownTurn: "claimed",
    notSteerable: "The run is a review: Codex cannot steer a review turn; nothing was sent",
    problem: () => undefined,
    read: readReviewRun,
    // A review's verdict fails closed even when its review cannot be read.
    unread: ({ threadId, clientMessageId, turnId, phase }) =>
      unreadReview({ threadId, clientMessageId, turnId, status: observed(phase) }),
  },
  compact: {
    sends: async (session, _job, { threadId }) => {
      await session.call("thread/compact/start", { threadId }); // Answered {}.
      return null;
    },
    ownTurn: "next",
    notSteerable: "The run is a compact: Codex cannot steer a compact turn; nothing was sent",
    problem: () => undefined,
    // A compaction's turn has no user message and no answer: its end is its result.
    read: (_session, _job, { threadId, clientMessageId, turnId, phase }) =>
      Promise.resolve({
        ...NO_REPLIES,
        threadId,
        clientMessageId,
        turn: turnId === null ? null : { id: turnId, status: observed(phase) },
      }),
  },
};

const NO_REPLIES = {
  status: "observed" as const,
  replies: [],
  nextCursor: null,
  searchCursor: null,
};

/** A run's phase as a read reports its turn. */
function observed(phase: string): Exclude<ObservedTurnStatus, "unverified"> {
  return phase === "completed" || phase === "failed" || phase === "interrupted" ? phase : "running";
}

/**
 * The record of `job`'s kind.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(jobKind({ kind: "message" }).sends, "queue");
 * assert.equal(jobKind({ kind: "review", target: { type: "uncommittedChanges" } }).ownTurn, "claimed");
 * ```
 */
export function jobKind<J extends RunJob>(job: J): JobKind<J> {
  return KINDS[job.kind] as unknown as JobKind<J>;
}

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
export function settledRead(
  session: Session,
  job: RunJob,
  snapshot: SettledSnapshot,
): Promise<ReadReplyResult> {
  return jobKind(job).read(session, job, snapshot);
}

/**
 * What a finished run's result carries when its replies could not be read
 * (`JobKind.unread`): a review's failed verdict; undefined for other kinds.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const snapshot = { threadId: "t", clientMessageId: "c", turnId: "R", phase: "failed" };
 * assert.equal(settledUnread({ kind: "compact" }, snapshot), undefined);
 * ```
 */
export function settledUnread(
  job: RunJob,
  snapshot: SettledSnapshot,
): ReadReplyResult | undefined {
  return jobKind(job).unread?.(snapshot);
}

async function readReviewRun(
  session: Session,
  _job: RunJob,
  { threadId, clientMessageId, turnId, phase }: SettledSnapshot,
): Promise<ReadReplyResult> {
  if (turnId === null) throw new Error("a review run without its turn");
  return await readReview(session, { threadId, clientMessageId, turnId, status: observed(phase) });
}

async function readStructured(
  session: Session,
  job: { schema: Record<string, unknown> },
  { threadId, clientMessageId }: SettledSnapshot,
): Promise<ReadReplyResult> {
  const read = await readReply(session, { threadId, clientMessageId });
  const last = read.replies.at(-1);
  if (!last || "moderated" in last) {
    const why = last ? "the final answer was moderated by Codex" : "the turn has no final answer";
    return { ...read, structured: { valid: false, error: why } };
  }
  const structured = last.truncated
    ? { valid: false as const, error: "the final answer is longer than the 16 KiB page bound" }
    : (await structuredChecker()).structuredAnswer(job.schema, last.text);
  return { ...read, structured };
}
