/**
 * The turn runtimes of this relay, one per thread: finding them for followers
 * and `codex_interrupt`, settling them when their turn ends (reading their
 * replies, recording the run), and ending them all at shutdown. Starting
 * them is `turn_start.ts`.
 * @module
 */

import { asRelayError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Clock } from "../core/clock.ts";
import { type HeldConnection, heldSession } from "../connect/connection.ts";
import type { ElicitationRouter } from "../elicit/router.ts";
import type { Receipt } from "../ops/queue_message.ts";
import { type RunJob, settledRead } from "./run_job.ts";
import { type FinishedRun, FinishedRuns } from "./finished_runs.ts";
import type { ListedRun } from "../ops/listed_runs.ts";
import { type LiveRun, RunBoard } from "./run_board.ts";
import { type TurnLimits, TurnRuntime } from "./turn_runtime.ts";

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

/** The registry. */
export class TurnRegistry {
  readonly #deps: RegistryDeps;
  readonly #active = new Map<string, TurnRuntime>();
  readonly #byId = new Map<string, TurnRuntime>();
  readonly #settled = new Map<string, Promise<FinishedRun>>();
  readonly #finished: FinishedRuns;
  readonly #board: RunBoard;
  #closing = false;

  constructor(deps: RegistryDeps) {
    this.#deps = deps;
    this.#finished = new FinishedRuns(deps.clock);
    this.#board = new RunBoard(deps.wallNow);
  }

  /**
   * One look at this relay's runs (`codex_list_threads`): those it follows
   * now, then those that ended since the last look (each listed once).
   */
  look(): ListedRun[] {
    const live = [...this.#byId.values()].filter((r) => !r.ended && !r.lost);
    return this.#board.look(live.map((r) => this.#live(r)));
  }

  #live(runtime: TurnRuntime): LiveRun {
    return {
      id: runtime.id,
      threadId: runtime.threadId,
      clientMessageId: runtime.clientMessageId,
      phase: runtime.snapshot().phase,
      pending: this.#deps.router.pendingFor(runtime).length,
    };
  }

  /** Whether the registry is shutting down (no new runtime may start). */
  get closing(): boolean {
    return this.#closing;
  }

  /** The runtime running on `threadId`, if any. */
  active(threadId: string): TurnRuntime | undefined {
    return this.#active.get(threadId);
  }

  /** The threads this relay runs a turn on now. */
  runningThreads(): ReadonlySet<string> {
    return new Set([...this.#active.values()].filter((r) => !r.ended).map((r) => r.threadId));
  }

  /** A runtime by id (absent once it is gone). */
  byId(id: string): TurnRuntime | undefined {
    return this.#byId.get(id);
  }

  /** Runtimes alive now. */
  get size(): number {
    return this.#byId.size;
  }

  /** Resolves with the run once `runtime` ended and its replies were read. */
  settled(runtime: TurnRuntime): Promise<FinishedRun> {
    return this.#settled.get(runtime.id) ??
      Promise.resolve(this.finished(runtime.threadId, runtime.clientMessageId)!);
  }

  /** A finished run of this message, if this relay ran it recently. */
  finished(threadId: string, clientMessageId: string): FinishedRun | undefined {
    return this.#finished.get(threadId, clientMessageId);
  }

  /**
   * A new runtime for the message's turn on `conn`, registered as the
   * thread's; `turnId` when it attaches to a turn that already runs.
   */
  adopt(
    conn: HeldConnection,
    threadId: string,
    clientMessageId: string,
    turnId?: string,
    job?: RunJob,
  ): TurnRuntime {
    const runtime = new TurnRuntime(conn, threadId, clientMessageId, {
      router: this.#deps.router,
      clock: this.#deps.clock,
      log: this.#deps.log,
      limits: this.#deps.limits,
      shared: this.#deps.shared,
      ...(turnId === undefined ? {} : { turnId }),
      ...(job === undefined ? {} : { job }),
    });
    this.#active.set(threadId, runtime);
    this.#byId.set(runtime.id, runtime);
    this.#board.began(runtime.id);
    return runtime;
  }

  /** Forgets a runtime whose start failed. */
  drop(runtime: TurnRuntime): void {
    if (this.#active.get(runtime.threadId) === runtime) this.#active.delete(runtime.threadId);
    this.#byId.delete(runtime.id);
    this.#board.forget(runtime.id);
    this.#deps.router.forget(runtime);
  }

  /**
   * Starts the thread's queue (at its head: messages queued earlier run first, as Codex would run
   * them) unless Codex already did, and watches the turn of `receipt`'s message.
   */
  async launch(conn: HeldConnection, runtime: TurnRuntime, receipt: Receipt): Promise<void> {
    this.#track(runtime, receipt.queuedSubmissionId, true);
    try {
      await conn.call("thread/queue/start", { threadId: receipt.threadId });
    } catch {
      // "queue is empty" / "active or pending turn": Codex started it (or an earlier message) itself.
    }
  }

  /** Watches the turn of a run that started it itself (`turn/start`, `review/start`). */
  watch(runtime: TurnRuntime): void {
    this.#track(runtime, undefined, true);
  }

  /** Follows an attached runtime's turn (no watchdog: the relay did not start it here). */
  follow(runtime: TurnRuntime): void {
    this.#track(runtime, undefined, false);
  }

  #track(runtime: TurnRuntime, queuedSubmissionId: string | undefined, watchdog: boolean): void {
    const settled = Promise.withResolvers<FinishedRun>();
    this.#settled.set(runtime.id, settled.promise);
    runtime.begin(queuedSubmissionId, () => void this.#settle(runtime).then(settled.resolve), {
      watchdog,
      onLost: () => {
        // The turn runs on in the daemon; a later follower attaches again.
        this.drop(runtime);
        this.#settled.delete(runtime.id);
        void runtime.detach();
      },
    });
  }

  /** Interrupts the turn this relay runs on `threadId`; resolves with its run, or undefined. */
  async interrupt(threadId: string): Promise<FinishedRun | undefined> {
    const runtime = this.#active.get(threadId);
    if (!runtime) return undefined;
    await runtime.interrupt();
    return await this.settled(runtime);
  }

  /** Ends every runtime: declines what they wait on, interrupts their turns, releases threads. */
  async shutdown(): Promise<void> {
    this.#closing = true;
    if (this.#deps.shared) {
      // Their turns live in the daemon: detach only (pending requests stay pending there).
      await Promise.all([...this.#byId.values()].map((runtime) => runtime.detach()));
      return;
    }
    this.#deps.router.declineAll(undefined, "codex-relay is shutting down");
    await Promise.all([...this.#byId.values()].map(async (runtime) => {
      await runtime.interrupt("codex-relay is shutting down").catch(() => {});
      await this.settled(runtime).catch(() => {});
      await runtime.release();
    }));
  }

  async #settle(runtime: TurnRuntime): Promise<FinishedRun> {
    const run: FinishedRun = { snapshot: runtime.snapshot() };
    this.#board.ended(this.#live(runtime));
    if (this.#deps.readsReplies && runtime.alive) {
      try {
        const session = heldSession(
          runtime.connection,
          new AbortController().signal,
          SETTLE_READ_MS,
          this.#deps.clock,
        );
        run.replies = await settledRead(session, runtime.job, runtime.snapshot());
      } catch (error) {
        this.#deps.log.warn("reading replies failed", { reason: asRelayError(error).reason });
      }
    }
    this.#finished.add(run);
    this.drop(runtime);
    await runtime.release();
    this.#settled.delete(runtime.id);
    return run;
  }
}
