/**
 * The pure shaping of a runtime's snapshot into what a tool returns about a
 * turn this relay runs (`codex_run`, `codex_interrupt`, `codex_wait_reply`
 * following it); the shapes are `src/reply/schemas.ts`'s.
 * @module
 */

import type {
  failureFields,
  InterruptResult,
  ReadReplyResult,
  Receipt,
  replyFields,
  RequestSummary,
  RunResult,
  WaitMessageResult,
  WithdrawResult,
} from "../reply/schemas.ts";
import type { ReasonCode } from "../core/errors.ts";
import { buildReadResult, unavailableRead } from "../reply/read_result.ts";
import { isTerminal } from "../reply/turn_status.ts";
import { CANCELLED_START } from "./run_state.ts";
import type { FinishedRun } from "./run_book.ts";
import type { RunSnapshot } from "./run_book.ts";

/** The `declinedRequests` field of a snapshot: present only when something was declined. */
function runDeclined(snapshot: RunSnapshot): { declinedRequests?: RequestSummary[] } {
  const declined = snapshot.declinedRequests.map(({ method, summary }) => ({ method, summary }));
  return declined.length > 0 ? { declinedRequests: declined } : {};
}

/** The files fields of a snapshot: present once its cwd is known. */
function runFiles(snapshot: RunSnapshot): Pick<RunResult, "changedFiles" | "changedFilesCount"> {
  const { changedFiles, changedFilesCount } = snapshot;
  return changedFiles ? { changedFiles, changedFilesCount } : {};
}

/** The worktree the run works in (a worktree run's every result names it). */
function runWhere(snapshot: RunSnapshot): { worktree?: RunSnapshot["worktree"] } {
  return snapshot.worktree ? { worktree: snapshot.worktree } : {};
}

/** The turn fields of a snapshot. */
export function runTurn(snapshot: RunSnapshot, running: boolean): RunResult["turn"] {
  if (running) return { id: snapshot.turnId, status: "running" };
  const status = snapshot.phase === "queued" || snapshot.phase === "running"
    ? "running"
    : snapshot.phase;
  return { id: snapshot.turnId, status };
}

/** The failure fields of a snapshot (`retryAfterMs` only when retryable). */
export function runFailure(snapshot: RunSnapshot): Pick<RunResult, keyof typeof failureFields> {
  const out: Pick<RunResult, keyof typeof failureFields> = {};
  const failure = snapshot.failure;
  if (failure) {
    out.failureClass = failure.failureClass;
    out.retryable = failure.retryable;
    if (failure.retryable && failure.retryAfterMs !== undefined) {
      out.retryAfterMs = failure.retryAfterMs;
    }
    if (failure.fix !== undefined) out.fix = failure.fix;
  }
  if (snapshot.error) out.error = snapshot.error;
  return out;
}

/** The reply fields of a finished run (reply-read level only). */
export function runReplies(run: FinishedRun): Pick<RunResult, keyof typeof replyFields> {
  if (!run.replies) return {};
  const { replies, nextCursor, review, structured } = run.replies;
  return {
    replies,
    nextCursor,
    ...(review ? { review } : {}),
    ...(structured ? { structured } : {}),
  };
}

/** How following a run ended, as far as its result is concerned. */
export type FollowEnd =
  | { kind: "settled"; run: FinishedRun }
  | {
    kind: "running";
    snapshot: RunSnapshot;
    pendingRequests: RequestSummary[];
    /** Following stopped because the shared connection was lost (final). */
    lost?: true;
    /** A followed message: its replies so far. */
    read?: ReadReplyResult;
  };

/** How a wait's entry ended: a followed run's end, or a read message's last read. */
export type EntryEnd = FollowEnd | { kind: "read"; read: ReadReplyResult; final: boolean };

/**
 * One message's `codex_wait_reply` result, from how its entry ended: `timedOut`
 * is true exactly when the end is not final. A run that ended answers with its
 * replies (or known end), notes and how it failed; a lost one `unavailable`
 * (`connection_lost`); one still running with its replies so far and what it
 * waits on.
 */
export function waitResult(end: EntryEnd): WaitMessageResult {
  if (end.kind === "read") return { ...end.read, timedOut: !end.final };
  const snapshot = end.kind === "settled" ? end.run.snapshot : end.snapshot;
  const scope = { threadId: snapshot.threadId, clientMessageId: snapshot.clientMessageId };
  const read = end.kind === "settled"
    ? endedRead(end.run)
    : end.lost
    ? unavailableRead(scope, "connection_lost")
    : end.read ?? unavailableRead(scope, "timeout");
  const open = end.kind === "running" && !end.lost;
  const failed = end.kind === "settled" && snapshot.error && snapshot.phase === "failed";
  return {
    ...read,
    timedOut: open,
    ...(open && end.pendingRequests.length ? { pendingRequests: end.pendingRequests } : {}),
    ...(open && snapshot.activity ? { activity: snapshot.activity } : {}),
    ...runDeclined(snapshot),
    ...(snapshot.notes.length ? { notes: snapshot.notes } : {}),
    ...(failed ? { error: snapshot.error } : {}),
    ...runFiles(snapshot),
    ...(snapshot.usage ? { usage: snapshot.usage } : {}),
    ...runWhere(snapshot),
    ...(snapshot.cutNotifications ? { cutNotifications: snapshot.cutNotifications } : {}),
  };
}

/** What a run's result says when following it lost the daemon connection. */
export const LOST_MESSAGE =
  "The connection to the app-server daemon was lost while following the turn, so whether it still runs is unknown; codex_wait_reply follows it again once the daemon answers";

/** The `codex_run` result of a run that started, from how following it ended. */
export function runResult(end: FollowEnd, receipt: Receipt): RunResult {
  const snapshot = end.kind === "settled" ? end.run.snapshot : end.snapshot;
  const out: RunResult = {
    receipt,
    threadId: snapshot.threadId,
    turn: runTurn(snapshot, end.kind === "running"),
    ...runFailure(snapshot),
    ...runDeclined(snapshot),
    ...runFiles(snapshot),
    ...runWhere(snapshot),
  };
  if (snapshot.queuedAhead.length > 0) out.queuedAhead = snapshot.queuedAhead;
  if (snapshot.notes.length > 0) out.notes = snapshot.notes;
  if (snapshot.usage) out.usage = snapshot.usage;
  if (snapshot.cutNotifications) out.cutNotifications = snapshot.cutNotifications;
  if (end.kind === "running") {
    if (end.pendingRequests.length > 0) out.pendingRequests = end.pendingRequests;
    if (snapshot.activity && !end.lost) out.activity = snapshot.activity;
    if (end.lost) Object.assign(out, { reason: "connection_lost", message: LOST_MESSAGE });
  } else Object.assign(out, runReplies(end.run));
  return out;
}

/** The `codex_run` result of a run without a turn: its start refused, or its runtime gone. */
export function noTurnResult(
  receipt: Receipt,
  threadId: string,
  reason: ReasonCode | undefined,
  message: string | undefined,
): RunResult {
  return { receipt, threadId, turn: null, reason, message };
}

/** The `codex_interrupt` result of a run that ended (or of no run). */
export function interruptResult(threadId: string, run: FinishedRun | undefined): InterruptResult {
  if (!run) return { status: "not_running", threadId, turn: null };
  const turn = runTurn(run.snapshot, false);
  const { failureClass, error } = runFailure(run.snapshot);
  const cancelled = run.snapshot.notes.includes(CANCELLED_START);
  return {
    status: turn?.status === "interrupted" ? "interrupted" : "ended",
    ...(cancelled ? { message: CANCELLED_START } : {}),
    threadId,
    turn,
    ...(failureClass ? { failureClass } : {}),
    ...(error ? { error } : {}),
    ...runReplies(run),
  };
}

/** The `codex_interrupt` result of a withdraw (of a queued message: the named one, or the run's). */
export function withdrawnResult(w: WithdrawResult): InterruptResult {
  const status = w.status === "withdrawn" || w.status === "unknown" || w.status === "unavailable"
    ? w.status
    : "not_running";
  const message = status === "withdrawn"
    ? `the message ${w.clientMessageId} was deleted from the thread's queue and will not run`
    : `${w.clientMessageId}: ${w.message ?? w.status}`;
  return {
    status,
    ...(w.reason ? { reason: w.reason } : {}),
    message,
    threadId: w.threadId,
    turn: null,
  };
}

/**
 * What a wait reports of a run that ended: the replies read at its end, with
 * its known end (a read that cannot tell it, as a fresh app-server sees a
 * turn its lost app-server ran as unfinished, reports the end the run saw).
 * When they could not be read (its app-server was lost with it), the end the
 * run saw: its turn with that status and no replies, or, when no turn had
 * started, `unavailable` (`connection_lost`).
 */
export function endedRead(run: FinishedRun): ReadReplyResult {
  const { snapshot, replies } = run;
  const phase = snapshot.phase;
  const known = phase === "queued" || phase === "running" ? undefined : phase;
  if (replies) {
    const turn = replies.status === "observed" ? replies.turn : null;
    if (!turn || isTerminal(turn.status) || !known) return replies;
    return { ...replies, turn: { ...turn, status: known } };
  }
  const scope = { threadId: snapshot.threadId, clientMessageId: snapshot.clientMessageId };
  if (snapshot.turnId === null) {
    return buildReadResult({ ...scope, match: { kind: "unavailable", reason: "connection_lost" } });
  }
  return buildReadResult({
    ...scope,
    match: { kind: "observed", turnId: snapshot.turnId, itemId: "" },
    turnStatus: known ?? "unverified",
  });
}
