/**
 * The runs of this relay (one map: `run_book.ts`) and their runtimes: a run
 * exists from its first step ({@linkcode TurnRegistry.begin}: one run per
 * thread, decided atomically), gets a runtime when it holds a connection,
 * is settled when its turn ends (its replies read, the run recorded) and
 * ended at shutdown. Starting them is `turn_start.ts`.
 * @module
 */

import { asRelayError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Clock } from "../core/clock.ts";
import { type HeldConnection, heldSession } from "../connect/connection.ts";
import type { ElicitationRouter } from "../elicit/router.ts";
import type { ListedRun, Receipt } from "../reply/schemas.ts";
import { type RunJob, settledRead } from "./run_job.ts";
import type { ReadReplyResult } from "../reply/schemas.ts";
import { isTerminal } from "../reply/turn_status.ts";
import { type FinishedRun, type Run, RunBook } from "./run_book.ts";
import { CANCELLED_START, phaseOf, type RunState } from "./run_state.ts";
import { type RunSnapshot, type TurnLimits, TurnRuntime } from "./turn_runtime.ts";

export type { FinishedRun, Run } from "./run_book.ts";

/** What the registry is built from. */
export interface RegistryDeps {
  router: ElicitationRouter;
  clock: Clock;
  log: Logger;
  limits: TurnLimits;
  /** Whether finished runs read their replies (the reply-read level). */
  readsReplies: boolean;
  /**
   * The connection is shared (the daemon): runtimes follow only their own
   * turn, and at shutdown they detach, leaving their turns running.
   */
  shared?: boolean;
  /** Wall-clock milliseconds, for the runs' `startedAt` (default `Date.now`). */
  wallNow?: () => number;
}

/** Budget of reading a finished run's replies on its own connection. */
const SETTLE_READ_MS = 20_000;

export { CANCELLED_START } from "./run_state.ts";

/** The registry. */
export class TurnRegistry {
  readonly #deps: RegistryDeps;
  readonly #book: RunBook<TurnRuntime>;
  readonly #wallNow: () => number;
  #closing = false;

  constructor(deps: RegistryDeps) {
    this.#deps = deps;
    this.#wallNow = deps.wallNow ?? Date.now;
    this.#book = new RunBook(deps.clock, this.#wallNow);
  }

  /**
   * One look at this relay's runs (`codex_list_threads`): those it follows
   * now, the lost ones, then those that ended since the last look (each listed once).
   */
  look(): ListedRun[] {
    return this.#book.look((run) =>
      run.handle ? this.#deps.router.pendingFor(run.handle).length : 0
    );
  }

  /** Whether the registry is shutting down (no new runtime may start). */
  get closing(): boolean {
    return this.#closing;
  }

  /**
   * A new run of `clientMessageId` on `threadId`, or undefined when this relay
   * has a run there already (`turn_running`): of concurrent calls one wins.
   */
  begin(
    threadId: string,
    clientMessageId: string,
    state?: RunState,
    job?: RunJob,
  ): Run<TurnRuntime> | undefined {
    return this.#closing ? undefined : this.#book.begin(threadId, clientMessageId, state, job);
  }

  /** Its message is on its way to the queue (`thread/queue/add` is sent now). */
  writing(run: Run<TurnRuntime>): void {
    this.#book.move(run, { kind: "writing" });
  }

  /** The live run on `threadId` (starting, queued or running), if any. */
  run(threadId: string): Run<TurnRuntime> | undefined {
    return this.#book.live(threadId);
  }

  /** The runtime of the live run on `threadId`, if it has one. */
  active(threadId: string): TurnRuntime | undefined {
    return this.#book.live(threadId)?.handle;
  }

  /** The threads this relay runs a turn on now (its message queued or its turn running). */
  runningThreads(): ReadonlySet<string> {
    return new Set(
      this.#book.lives().filter((r) => r.state.kind !== "starting").map((r) => r.threadId),
    );
  }

  /** A run's runtime by the run's id (absent once the run is gone or had none). */
  byId(id: string): TurnRuntime | undefined {
    return this.#book.byId(id)?.handle;
  }

  /** Live runs now. */
  get size(): number {
    return this.#book.lives().length;
  }

  /** Resolves with the run once `runtime`'s turn ended and its replies were read. */
  settled(runtime: TurnRuntime): Promise<FinishedRun> {
    const run = this.#book.byId(runtime.id);
    return run?.settled ??
      Promise.resolve(this.finished(runtime.threadId, runtime.clientMessageId)!);
  }

  /** A finished run of this message, if this relay ran it recently. */
  finished(threadId: string, clientMessageId: string): FinishedRun | undefined {
    return this.#book.finished(threadId, clientMessageId);
  }

  /** A runtime following `run`'s turn on `conn`; `turnId` when it attaches to a running turn. */
  adopt(conn: HeldConnection, run: Run<TurnRuntime>, turnId?: string): TurnRuntime {
    const runtime = new TurnRuntime(conn, run.threadId, run.clientMessageId, {
      id: run.id,
      run: { state: () => run.state, move: (event) => this.#book.move(run, event) },
      wallNow: this.#wallNow,
      router: this.#deps.router,
      clock: this.#deps.clock,
      log: this.#deps.log,
      limits: this.#deps.limits,
      shared: this.#deps.shared,
      ...(turnId === undefined ? {} : { turnId }),
      job: run.job,
    });
    run.handle = runtime;
    return runtime;
  }

  /**
   * Forgets a run whose start failed (nothing of it runs); one that an
   * interrupt ended while it started settles as interrupted.
   */
  drop(run: Run<TurnRuntime>): void {
    if (run.handle) this.#deps.router.forget(run.handle);
    this.#book.forget(
      run,
      cancelledByInterrupt(run) ? { snapshot: startSnapshot(run) } : undefined,
    );
  }

  /**
   * Starts the thread's queue (at its head: messages queued earlier run first, as Codex would run
   * them) unless Codex already did, and watches the turn of `receipt`'s message.
   */
  async launch(conn: HeldConnection, runtime: TurnRuntime, receipt: Receipt): Promise<void> {
    const run = this.#book.byId(runtime.id);
    if (run) this.#book.move(run, { kind: "queued" });
    this.#track(runtime, receipt.queuedSubmissionId, true);
    try {
      await conn.call("thread/queue/start", { threadId: receipt.threadId });
    } catch {
      // "queue is empty" / "active or pending turn": Codex started it (or an earlier message) itself.
    }
  }

  /** Watches the turn of a run that started it itself (`turn/start`, `review/start`). */
  watch(runtime: TurnRuntime): void {
    const run = this.#book.byId(runtime.id);
    if (run) this.#book.move(run, { kind: "queued" });
    this.#track(runtime, undefined, true);
  }

  /** Follows an attached runtime's turn (no watchdog: the relay did not start it here). */
  follow(runtime: TurnRuntime): void {
    this.#track(runtime, undefined, false);
  }

  #track(runtime: TurnRuntime, queuedSubmissionId: string | undefined, watchdog: boolean): void {
    runtime.begin(queuedSubmissionId, () => void this.#settle(runtime), {
      watchdog,
      onLost: () => {
        // The turn runs on in the daemon; the run stays listed as lost, a later follower attaches.
        this.#deps.router.forget(runtime);
        void runtime.detach();
      },
    });
  }

  /**
   * Interrupts the run this relay has on `threadId`: one still starting is
   * cancelled (nothing is queued), a queued or running one interrupted.
   * Resolves with its end, or undefined when there is none.
   */
  async interrupt(threadId: string): Promise<FinishedRun | undefined> {
    let run = this.#book.live(threadId);
    if (run?.state.kind === "starting" && run.state.writing) {
      // Its message is on its way to the queue: interrupt it as the queued run it becomes.
      await run.started;
      run = this.#book.live(threadId);
    }
    if (!run) return undefined;
    if (run.state.kind === "starting") {
      this.#book.move(run, { kind: "ended", end: "interrupted" });
      run.cancel.abort();
    } else await run.handle?.interrupt();
    return await run.settled;
  }

  /** Ends every runtime: declines what they wait on, interrupts their turns, releases threads. */
  async shutdown(): Promise<void> {
    this.#closing = true;
    const runtimes = this.#book.lives().flatMap((r) => r.handle ? [r.handle] : []);
    for (const run of this.#book.lives()) if (!run.handle) run.cancel.abort();
    if (this.#deps.shared) {
      // Their turns live in the daemon: detach only (pending requests stay pending there).
      await Promise.all(runtimes.map((runtime) => runtime.detach()));
      return;
    }
    this.#deps.router.declineAll(undefined, "codex-relay is shutting down");
    await Promise.all(runtimes.map(async (runtime) => {
      await runtime.interrupt("codex-relay is shutting down").catch(() => {});
      await this.settled(runtime).catch(() => {});
      await runtime.release();
    }));
  }

  async #settle(runtime: TurnRuntime): Promise<void> {
    const run = this.#book.byId(runtime.id);
    const finished: FinishedRun = { snapshot: runtime.snapshot() };
    if (this.#deps.readsReplies) {
      const replies = await this.#readReplies(runtime);
      if (replies) finished.replies = knownEnd(replies, finished.snapshot);
    }
    await runtime.release();
    if (run) this.#book.settle(run, finished);
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
      return await settledRead(session, runtime.job, runtime.snapshot());
    } catch (error) {
      this.#deps.log.warn("reading replies failed", { reason: asRelayError(error).reason });
      return undefined;
    }
  }
}

/**
 * The replies of an ended run with its known end: a read that cannot tell
 * the turn's end (a fresh app-server sees a turn its lost app-server ran as
 * unfinished) reports the end the run saw.
 */
function knownEnd(read: ReadReplyResult, snapshot: RunSnapshot): ReadReplyResult {
  if (read.status !== "observed" || !read.turn || isTerminal(read.turn.status)) return read;
  const phase = snapshot.phase;
  if (phase === "queued" || phase === "running") return read;
  return { ...read, turn: { ...read.turn, status: phase } };
}

/**
 * Whether an interrupt ended `run` while it started (not a failure of its
 * connection, which ends it too, and not a shutdown, which only aborts it).
 */
export function cancelledByInterrupt(run: Run<TurnRuntime>): boolean {
  return run.cancel.signal.aborted && run.state.kind === "ended" && run.state.end === "interrupted";
}

/** The snapshot of a run cancelled while it started: interrupted, nothing queued. */
function startSnapshot(run: Run<TurnRuntime>): RunSnapshot {
  return {
    threadId: run.threadId,
    clientMessageId: run.clientMessageId,
    turnId: null,
    phase: phaseOf(run.state),
    itemsCompleted: 0,
    declinedRequests: [],
    queuedAhead: [],
    notes: [CANCELLED_START],
  };
}
