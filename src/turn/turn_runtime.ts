/**
 * A turn runtime: a held connection that follows one thread while the turn that
 * took one message runs. It follows the turn's notifications, hands Codex's
 * requests to the elicitation router, guards against silence (stall budget) and
 * overall length (backstop), classifies the outcome, and releases the thread
 * (unsubscribe, exit) when the turn ends.
 * On a shared connection (the daemon) it routes and interrupts only its own
 * turn (`own_requests.ts`); that turn lives in the daemon, so the relay going
 * only detaches it, and a later runtime may attach to it by its id.
 * @module
 */

import type { RpcId, TurnError } from "../codex/types.ts";
import type { RelayError } from "../core/errors.ts";
import type { DeclinedRequest, ElicitationRouter, RuntimeHandle } from "../elicit/router.ts";
import { type Cancelled, cancelledNote } from "../elicit/refusals.ts";
import type { Logger } from "../core/log.ts";
import type { Clock } from "../core/clock.ts";
import type { HeldConnection, ServerRequest } from "../connect/connection.ts";
import { type Failure, stalledFailure } from "./classify_failure.ts";
import { recordPart, type Run, type RunSnapshot } from "./run_book.ts";
import { failureOf, phaseOf, type TurnEnd } from "./run_state.ts";
import { OwnRequests } from "./own_requests.ts";
import { jobKind } from "./run_job.ts";
import { RunChanges } from "./run_changes.ts";
import { type StallWhy, type TurnLimits, TurnWatchdog } from "./turn_watchdog.ts";
import { END_NOT_REPORTED, sendInterrupt, turnsToInterrupt } from "./turn_interrupt.ts";
import { type FilesAt, type Happened, TurnEvents } from "./turn_events.ts";
import type { ChangedFile } from "../reply/files_schema.ts";
import type { RunUsage } from "../reply/schemas.ts";

/** What runtimes are built from (the registry's own). */
export interface RuntimeDeps {
  router: ElicitationRouter;
  clock: Clock;
  log: Logger;
  limits: TurnLimits;
  /** The connection is shared (the daemon): follow only this message's turn. */
  shared?: boolean;
  /** Wall-clock ms (when a lost run was lost; default `Date.now`). */
  wallNow?: () => number;
}

/** A runtime following one message's turn on one held helper. */
export class TurnRuntime extends RunChanges implements RuntimeHandle {
  /** Its run: the run's state is kept there, and moved by the runtime. */
  readonly run: Run<TurnRuntime>;
  readonly id: string;
  /** The connection, for reads on the held thread. */
  readonly connection: HeldConnection;
  readonly #deps: RuntimeDeps;
  /** The one reducer of the run's events (files, usage, declined requests too). */
  readonly #events: TurnEvents;
  readonly #watchdog: TurnWatchdog;
  readonly #own = new OwnRequests();
  /** Where its files are listed from: the thread's cwd (and its worktree's root); none attached. */
  readonly #filesAt: FilesAt | undefined;
  /** Set by {@linkcode begin}: what restarts a paused queue, and who is told the end. */
  #begun: { queuedSubmissionId: string | undefined; onEnd: () => void } | undefined;
  #alive = true;
  #released: Promise<void> | undefined;

  /**
   * A runtime of `run` on `conn`: `turnId` when it attaches to a turn that
   * already runs; `cwd`, the thread's cwd, when the start read it.
   */
  constructor(
    conn: HeldConnection,
    run: Run<TurnRuntime>,
    deps: RuntimeDeps,
    turnId?: string,
    cwd?: string,
  ) {
    super(deps.clock);
    this.connection = conn;
    this.run = run;
    this.id = run.id;
    this.#deps = deps;
    const where = run.destination;
    this.#filesAt = where.kind === "worktree"
      ? { cwd: where.cwd, root: where.worktree.path }
      : where.kind === "cwd"
      ? { cwd: where.cwd }
      : cwd === undefined
      ? undefined
      : { cwd };
    this.#watchdog = new TurnWatchdog(deps.clock, deps.limits, (why) => void this.#stall(why));
    this.#events = new TurnEvents(run, turnId ?? null, deps.wallNow);
    conn.listen({
      onNotification: (method, params) => this.#act(this.#events.notification(method, params)),
      onServerRequest: (request) => this.#onServerRequest(request),
      onActivity: () => this.#armStall(),
    });
    void conn.ended.then((error) => this.#onHelperEnded(error));
  }

  /**
   * Starts following the turn: the watchdog (unless `guarded` is false: an
   * attached follower); `queuedSubmissionId` lets a paused queue be
   * restarted; `onEnd` is called once the turn ended.
   */
  begin(queuedSubmissionId: string | undefined, onEnd: () => void, guarded = true): void {
    this.#begun = { queuedSubmissionId, onEnd };
    // A fast turn may have ended (or its connection been lost) while the runtime was set up.
    if (this.ended) return onEnd();
    if (this.lost) return void this.detach();
    this.#watchdog.start(guarded);
    this.#armStall();
  }

  /** Whether this runtime saw a turn start on its thread that has not ended. */
  get busy(): boolean {
    return this.#events.currentTurnId !== null;
  }
  /** The run's own turn is `turnId` (a review's turn R, as `review/start` answered). */
  claim = (turnId: string): void => this.#act(this.#events.claim(turnId));

  /** The shared connection was lost while the turn ran (it runs on in the daemon). */
  get lost(): boolean {
    return this.run.state.kind === "lost";
  }

  /** Attached again to a lost run's turn: the usage that run counted before the loss. */
  carryUsage(usage: RunUsage | undefined): void {
    this.#events.carryUsage(usage);
  }

  /** The turn's status as a read saw it after attaching (an earlier end sends no event). */
  observed(status: string, error?: TurnError | null): void {
    this.#act(this.#events.ended(status, error));
  }

  /**
   * Leaves the turn running (shared connection, at shutdown): its pending
   * requests are forgotten unanswered (they stay pending in the daemon for the
   * next follower); nothing is interrupted or declined. Idempotent.
   */
  detach(): Promise<void> {
    return this.#close(false);
  }

  /** Whether the helper is alive. */
  get alive(): boolean {
    return this.#alive;
  }

  /** Whether the turn has ended. */
  get ended(): boolean {
    return this.run.state.kind === "ended";
  }

  /** Whether nothing more happens to the turn here: it ended, or its helper is gone. */
  get isOver(): boolean {
    return this.ended || !this.#alive;
  }

  /** The run as of now: its record's part and its events' view. */
  snapshot(): RunSnapshot {
    return { ...recordPart(this.run), ...this.#events.view(this.#filesAt) };
  }

  /** The thread's cwd, when the start read it. */
  get cwd(): string | undefined {
    return this.#filesAt?.cwd;
  }

  /** At the run's end in a worktree: what git says it changed there (paths from `root`). */
  changedInGit(root: string, files: readonly ChangedFile[]): void {
    this.#events.changedInGit(root, files);
  }

  /** RuntimeHandle: pauses the stall watchdog while a human is being asked. */
  waitingOnHuman(waiting: boolean): void {
    if (!this.#watchdog.waitingOnHuman(waiting)) return;
    if (waiting) this.progress("Waiting on an approval or answer from you");
    this.#armStall();
  }

  /** RuntimeHandle: a request the router declined at once (it cannot be forwarded). */
  declinedUnforwardable(declined: DeclinedRequest): void {
    this.#events.declined(declined);
    this.progress(`Declined a request codex-relay cannot forward: ${declined.summary}`);
  }

  /** RuntimeHandle: an accepted answer went to Codex as `decline`, because of `problem`. */
  answerRefused(summary: string, problem: string): void {
    this.addNote(`Your answer to "${summary.slice(0, 120)}" counted as a decline: ${problem}`);
  }

  /** RuntimeHandle: a request was answered `cancel`; the result names it. */
  requestCancelled(cancelled: Cancelled): void {
    this.addNote(cancelledNote(cancelled));
  }

  /** Records something the client should know about the run (results carry it as `notes`). */
  addNote(note: string): void {
    if (this.#events.story.note(note)) this.progress(note);
  }

  /** RuntimeHandle: answers a server request. */
  respond(rpcId: RpcId, result: unknown): void {
    this.connection.respond(rpcId, result);
  }

  /** RuntimeHandle: answers a server request with an error. */
  respondError(rpcId: RpcId, code: number, message: string): void {
    this.connection.respondError(rpcId, code, message);
  }

  /**
   * Interrupts the running turn (`turn/interrupt`) and waits for it to end,
   * within one grace period in all. When Codex refuses or does not confirm,
   * the turn counts as interrupted: releasing the runtime reaps its helper,
   * which ends the turn.
   */
  async interrupt(why = "interrupted"): Promise<void> {
    if (this.isOver) return;
    this.progress(
      why === "interrupted" ? "Interrupting the turn" : `Interrupting the turn (${why})`,
    );
    const ownOnly = this.#deps.shared || jobKind(this.run.job).ownTurn === "claimed";
    const pick = () => turnsToInterrupt(this.#events, ownOnly);
    // One grace for waiting for the turn (a queued run's) and for its end.
    const until = this.#deps.clock.now() + this.#deps.limits.interruptGraceMs;
    if (pick().length === 0 && phaseOf(this.run.state) === "queued") {
      // Codex may have just taken the message (a withdraw came too late): its turn is starting.
      await this.#until(() => pick().length > 0 || this.isOver, until);
      if (this.isOver) return;
    }
    const turnIds = pick();
    let unconfirmed: string | undefined;
    if (turnIds.length) {
      const end = Math.max(until, this.#deps.clock.now() + 1);
      const target = { threadId: this.run.threadId, turnIds };
      unconfirmed = await sendInterrupt(this.connection, target, end, this.#deps);
      if (unconfirmed === undefined) await this.#until(() => this.isOver, end);
      if (!this.isOver) unconfirmed ??= END_NOT_REPORTED;
    }
    this.#finish("interrupted", unconfirmed, failureOf(this.run.state));
  }

  /** Its message was withdrawn from the queue before its turn started: the run ends so. */
  withdrawn(): void {
    if (phaseOf(this.run.state) !== "queued") return;
    this.#finish("interrupted", "Withdrawn from the queue before its turn started");
  }

  /** Releases the thread (unsubscribe) and reaps the helper. Idempotent. */
  release(): Promise<void> {
    return this.#close(true);
  }

  /** Stops following, once: `release` declines what waits and unsubscribes first. */
  #close(release: boolean): Promise<void> {
    this.#released ??= (async () => {
      this.#watchdog.stop();
      if (release) {
        this.#deps.router.declineAll(this, "the runtime is closing");
        try {
          if (this.#alive) {
            await this.connection.call("thread/unsubscribe", { threadId: this.run.threadId }, {
              timeoutMs: 2000,
            });
          }
        } catch {
          // Exiting releases the thread as well.
        }
      }
      this.#deps.router.forget(this);
      await this.connection.close();
      this.#alive = false;
      this.changed();
    })();
    return this.#released;
  }

  /** A server request: on a shared connection only this run's turn's reach the router. */
  #onServerRequest(request: ServerRequest): void {
    if (this.#deps.shared && !this.#own.take(request, this.#events.turnId)) {
      // Another turn's (the user's own), or one delivered again: left alone here.
      this.#deps.log.debug("request left alone", { method: request.method });
      return;
    }
    this.#deps.router.receive(this, request.id, request.method, request.params);
  }

  async #restartQueue(): Promise<void> {
    try {
      await this.connection.call("thread/queue/start", {
        threadId: this.run.threadId,
        ...(this.#begun?.queuedSubmissionId
          ? { queuedSubmissionId: this.#begun.queuedSubmissionId }
          : {}),
      });
    } catch {
      // Already started, or nothing queued: the notifications tell.
    }
  }

  #finish(phase: TurnEnd, error?: string, failure?: Failure): void {
    if (this.ended) return;
    this.run.move({
      kind: "ended",
      end: phase,
      ...(error === undefined ? {} : { error }),
      ...(failure === undefined ? {} : { failure }),
    });
    this.#watchdog.stop();
    this.progress(`The turn ended: ${phase}`);
    this.#deps.log.info("turn ended", { phase, failureClass: failure?.failureClass });
    this.#begun?.onEnd();
  }

  #onHelperEnded(error: RelayError): void {
    this.#alive = false;
    const lost = this.#deps.shared && !this.ended && this.#released === undefined;
    if (lost) {
      // The daemon runs the turn on: this runtime only lost sight of it. The run stays listed
      // as lost; a later follower attaches.
      this.run.move({ kind: "lost", at: (this.#deps.wallNow ?? Date.now)() });
      this.#watchdog.stop();
      this.#deps.log.info("lost the turn's connection; the turn runs on", { reason: error.reason });
    } else if (!this.ended) {
      const why = `The connection to the app-server ended during the turn (${error.reason})`;
      this.#finish("failed", `${why}: ${error.message}`, {
        failureClass: "internal",
        retryable: false,
      });
    }
    this.#deps.router.forget(this);
    this.changed();
    if (lost && this.#begun) void this.detach();
  }

  #armStall(): void {
    this.#watchdog.arm(!this.isOver && this.#begun !== undefined);
  }

  async #stall(why: StallWhy): Promise<void> {
    if (this.ended || failureOf(this.run.state)) return;
    this.run.move({ kind: "stalled", failure: stalledFailure(this.#events.itemsCompleted > 0) });
    this.#deps.log.warn("turn stalled", { why });
    await this.interrupt(
      why === "stalled" ? "no activity within the stall budget" : "the turn ran past the backstop",
    );
    this.#finish("interrupted", undefined, failureOf(this.run.state));
  }

  /** Acts on what the thread's events told. */
  #act(happened: Happened[]): void {
    for (const h of happened) {
      if (h.kind === "note") this.progress(h.text);
      else if (h.kind === "ownTurnStarted") {
        this.run.move({ kind: "turnStarted" });
        this.progress("Your message's turn started");
      } else if (h.kind === "ended") {
        // An interrupt keeps the failure recorded so far (a stall's).
        this.#finish(
          h.end,
          h.error,
          h.end === "interrupted" ? failureOf(this.run.state) : h.failure,
        );
      } else if (h.kind === "toolCall") {
        this.#watchdog.toolCall(h.id, h.completed);
        this.#armStall();
      } else if (h.kind === "resolved") this.#deps.router.resolved(this, h.requestId);
      else if (!failureOf(this.run.state) && jobKind(this.run.job).sends === "queue") {
        // Codex paused the queue: only a queued message's run waits on it, no other restarts it.
        void this.#restartQueue();
      }
    }
  }

  /** Waits on this runtime's changes until `done()` holds or the clock reaches `until`. */
  async #until(done: () => boolean, until: number): Promise<void> {
    const never = new AbortController().signal;
    while (!done() && this.#deps.clock.now() < until) {
      await this.waitForChange(this.version, until, never);
    }
  }
}
