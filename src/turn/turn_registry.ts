/**
 * The runs of this relay and their runtimes: the registry is the run book
 * (`run_book.ts`: the one map of runs and every view of it) that gives its
 * runs their runtimes. A run exists from its first step ({@linkcode RunBook.begin}: one run per thread,
 * decided atomically), gets a runtime when it holds a connection
 * ({@linkcode TurnRegistry.adopt}), is settled when its turn ends (its
 * replies read, the run recorded) and ended at shutdown. Starting them is
 * `turn_start.ts`.
 * @module
 */

import { asRelayError } from "../core/errors.ts";
import { type HeldConnection, heldSession } from "../connect/connection.ts";
import type { ReadReplyResult } from "../reply/schemas.ts";
import { readReply, type ReadReplyInput, readTurn } from "../ops/read_reply.ts";
import { jobKind, settledRead, settledUnread } from "./run_job.ts";
import { endedRead } from "./run_result.ts";
import type { Session } from "../connect/connection.ts";
import { type FinishedRun, type Run, RunBook, type RunSnapshot } from "./run_book.ts";
import { CANCELLED_START, phaseOf } from "./run_state.ts";
import { worktreeOf } from "./run_facts.ts";
import { gitChangedFiles } from "./worktree_files.ts";
import { type RuntimeDeps, TurnRuntime } from "./turn_runtime.ts";

export type { FinishedRun, Run } from "./run_book.ts";
export { CANCELLED_START } from "./run_state.ts";

/** What the registry is built from (its runtimes too). */
export interface RegistryDeps extends RuntimeDeps {
  /** Whether finished runs read their replies (the reply-read level). */
  readsReplies: boolean;
}

/** Budget of reading a finished run's replies on its own connection. */
const SETTLE_READ_MS = 20_000;

/** The registry: the run book of runs followed by turn runtimes. */
export class TurnRegistry extends RunBook<TurnRuntime> {
  readonly #deps: RegistryDeps;

  constructor(deps: RegistryDeps) {
    const pending = (run: Run<TurnRuntime>) =>
      run.handle ? deps.router.pendingFor(run.handle).length : 0;
    super(deps.clock, deps.wallNow, pending);
    this.#deps = deps;
  }

  /**
   * A runtime following `run`'s turn on `conn`: `turnId` when it attaches to
   * a running turn, `cwd` the thread's cwd when the start read it.
   */
  adopt(conn: HeldConnection, run: Run<TurnRuntime>, turnId?: string, cwd?: string): TurnRuntime {
    run.handle = new TurnRuntime(conn, run, this.#deps, turnId, cwd);
    return run.handle;
  }

  /**
   * Forgets a run whose start failed (nothing of it runs). One cancelled
   * while it started (an interrupt, or `byClient`: the client cancelled the
   * call that started it) ends `interrupted` instead, is settled as such and
   * stays in the book: the next look lists it once, as any ended run.
   */
  drop(run: Run<TurnRuntime>, byClient = false): void {
    if (run.handle) this.#deps.router.forget(run.handle);
    run.handle = undefined;
    if (byClient && run.state.kind === "starting") run.move({ kind: "ended", end: "interrupted" });
    const ended = run.state.kind === "ended" && run.state.end === "interrupted";
    if (!ended) return this.forget(run);
    const note = cancelledByInterrupt(run) ? CANCELLED_START : CLIENT_CANCELLED_START;
    this.settle(run, { snapshot: startSnapshot(run, note) });
  }

  /**
   * Follows `runtime`'s turn until it ends, then settles its run: a run
   * whose message is queued (`queuedSubmissionId`: a paused queue is
   * restarted) or whose own turn was started, or (`guarded` false: no
   * watchdog) one attached to a turn the relay did not start here.
   */
  follow(runtime: TurnRuntime, queuedSubmissionId?: string, guarded = true): void {
    runtime.run.move({ kind: "queued" });
    runtime.begin(queuedSubmissionId, () => void this.#settle(runtime), guarded);
  }

  /**
   * Interrupts the run this relay has on `threadId`: one still starting is
   * cancelled (nothing is queued), a queued or running one interrupted (the
   * caller waits first for a message on its way to the queue: `turn_cancel.ts`).
   * Resolves with its end, or undefined when there is none.
   */
  async interrupt(threadId: string): Promise<FinishedRun | undefined> {
    const run = this.run(threadId);
    if (!run) return undefined;
    if (run.state.kind === "starting") {
      run.move({ kind: "ended", end: "interrupted" });
      run.cancel.abort();
    } else await run.handle?.interrupt();
    return await run.settled;
  }

  /** Ends every runtime: declines what they wait on, interrupts their turns, releases threads. */
  async shutdown(): Promise<void> {
    this.close();
    const runtimes = this.lives().flatMap((r) => r.handle ? [r.handle] : []);
    for (const run of this.lives()) if (!run.handle) run.cancel.abort();
    if (this.#deps.shared) {
      // Their turns live in the daemon: detach only (pending requests stay pending there).
      await Promise.all(runtimes.map((runtime) => runtime.detach()));
      return;
    }
    this.#deps.router.declineAll(undefined, "codex-relay is shutting down");
    await Promise.all(runtimes.map(async (runtime) => {
      await runtime.interrupt("codex-relay is shutting down").catch(() => {});
      await runtime.run.settled.catch(() => {});
      await runtime.release();
    }));
  }

  /**
   * `codex_read_reply`'s read of a message: Codex's, else (not found) this
   * relay's own run of it ({@linkcode readOwn}).
   */
  async readMessage(session: Session, ref: ReadReplyInput): Promise<ReadReplyResult> {
    const read = await readReply(session, ref);
    if (read.status !== "not_found" && read.status !== "no_match") return read;
    // A review's or a compaction's id is the relay's: Codex's items never name it.
    return await this.readOwn(session, ref.threadId, ref.clientMessageId) ?? read;
  }

  /**
   * The read of this relay's run of `clientMessageId` on `threadId`, for a
   * message Codex does not find (a review's or a compaction's: the relay
   * minted its id): as its run's result reads it, live or ended (a job whose
   * own turn is not told by its message); a lost compaction by the
   * turn it followed, as Codex stores it (unknown before its turn started);
   * undefined otherwise.
   */
  async readOwn(
    session: Session,
    threadId: string,
    clientMessageId: string,
  ): Promise<ReadReplyResult | undefined> {
    const live = this.run(threadId);
    if (live?.clientMessageId === clientMessageId && live.handle) {
      const snapshot = live.handle.snapshot();
      const own = jobKind(live.job).ownTurn !== "message" && snapshot.turnId !== null;
      return own ? await settledRead(session, live.job, snapshot) : undefined;
    }
    const lost = this.lostRun(threadId, clientMessageId);
    if (lost && jobKind(lost.job).ownTurn === "next") {
      const turnId = lost.handle?.snapshot().turnId ?? null;
      const scope = { threadId, clientMessageId };
      if (turnId !== null) return await readTurn(session, scope, turnId);
      return await settledRead(session, lost.job, { ...scope, turnId, phase: "running" });
    }
    // An ended one only when the relay minted its id (a message's end is Codex's to tell).
    const ended = this.settledRun(threadId, clientMessageId);
    const minted = ended && jobKind(ended.job).ownTurn !== "message";
    return minted ? endedRead(ended.finished!) : undefined;
  }

  async #settle(runtime: TurnRuntime): Promise<void> {
    const where = runtime.run.destination;
    if (where.kind === "worktree") {
      // In its worktree git knows every file the run changed, a shell command's too.
      const { path, base } = where.worktree;
      const files = await gitChangedFiles(where.git, path, base).catch(() => undefined);
      if (files) runtime.changedInGit(path, files);
    }
    const finished: FinishedRun = { snapshot: runtime.snapshot() };
    if (this.#deps.readsReplies) {
      const replies = await this.#readReplies(runtime) ??
        settledUnread(runtime.run.job, runtime.snapshot());
      if (replies) finished.replies = replies;
    }
    await runtime.release();
    this.settle(runtime.run, finished);
  }

  /**
   * The ended run's replies, read on its own connection. When that ended with
   * it (spawn: the turn host lost) none are read: the run's known end answers
   * at once (`endedRead` in `run_result.ts`).
   */
  async #readReplies(runtime: TurnRuntime): Promise<ReadReplyResult | undefined> {
    if (!runtime.alive) return undefined;
    const never = new AbortController().signal;
    try {
      const session = heldSession(runtime.connection, never, SETTLE_READ_MS, this.#deps.clock);
      return await settledRead(session, runtime.run.job, runtime.snapshot());
    } catch (error) {
      this.#deps.log.warn("reading replies failed", { reason: asRelayError(error).reason });
      return undefined;
    }
  }
}

/**
 * Whether an interrupt ended `run` while it started (not a failure of its
 * connection, which ends it too, and not a shutdown, which only aborts it).
 */
export function cancelledByInterrupt(run: Run<TurnRuntime>): boolean {
  return run.cancel.signal.aborted && run.state.kind === "ended" && run.state.end === "interrupted";
}

/** What a run's end says when the client cancelled the call that started it. */
export const CLIENT_CANCELLED_START =
  "The client cancelled the call before the run's work was sent";

/** The snapshot of a run cancelled while it started: interrupted, nothing queued. */
function startSnapshot(run: Run<TurnRuntime>, note: string): RunSnapshot {
  return {
    threadId: run.threadId,
    clientMessageId: run.clientMessageId,
    turnId: null,
    phase: phaseOf(run.state),
    itemsCompleted: 0,
    declinedRequests: [],
    queuedAhead: [],
    notes: [note],
    ...worktreeOf(run.destination),
  };
}
