/**
 * A turn runtime: a held connection that follows one thread while the turn that
 * took one message runs. It follows the turn's notifications, hands Codex's
 * requests to the elicitation router, watches for silence (stall budget) and
 * overall length (backstop), classifies the outcome, and releases the thread
 * (unsubscribe, exit) when the turn ends.
 * On a shared connection (the daemon) it routes and interrupts only its own
 * turn (`own_requests.ts`); that turn lives in the daemon, so the relay going
 * only detaches it, and a later runtime may attach to it by its id.
 * @module
 */

import type { RpcId, TurnError } from "../codex/types.ts";
import { type ItemRef, parseTurnEvent } from "../codex/notifications.ts";
import { RunStory } from "./run_story.ts";
import { RelayError } from "../core/errors.ts";
import type { DeclinedRequest, ElicitationRouter, RuntimeHandle } from "../elicit/router.ts";
import type { Logger } from "../core/log.ts";
import type { Clock, Timer } from "../core/clock.ts";
import type { HeldConnection, ServerRequest } from "../connect/connection.ts";
import { classifyFailure, type Failure, stalledFailure } from "./classify_failure.ts";
import {
  type BeginOptions,
  MAX_DECLINED_KEPT,
  type RunPhase,
  type RunSnapshot,
  type RuntimeDeps,
  type TurnLimits,
} from "./runtime_types.ts";
import { OwnRequests } from "./own_requests.ts";
import { RunChanges } from "./run_changes.ts";

export {
  type BeginOptions,
  DEFAULT_TURN_LIMITS,
  MAX_DECLINED_KEPT,
  type RunPhase,
  type RunSnapshot,
  type RuntimeDeps,
  type TurnLimits,
} from "./runtime_types.ts";

/** A runtime following one message's turn on one held helper. */
export class TurnRuntime implements RuntimeHandle {
  readonly id: string = crypto.randomUUID();
  readonly threadId: string;
  readonly clientMessageId: string;
  readonly #conn: HeldConnection;
  readonly #router: ElicitationRouter;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #limits: TurnLimits;
  #phase: RunPhase = "queued";
  #turnId: string | null = null;
  #currentTurnId: string | null = null;
  #queuedSubmissionId: string | undefined;
  #failure: Failure | undefined;
  #error: string | undefined;
  #itemsCompleted = 0;
  #declined: DeclinedRequest[] = [];
  readonly #story = new RunStory();
  #toolCalls = new Set<string>();
  #waitingOnHuman = false;
  #alive = true;
  #stallTimer: Timer | undefined;
  #backstop: Timer | undefined;
  readonly #changes: RunChanges;
  #released: Promise<void> | undefined;
  #onEnd: ((runtime: TurnRuntime) => void) | undefined;
  #onLost: (() => void) | undefined;
  #stalling = false;
  readonly #shared: boolean;
  #watchdog = true;
  #lost = false;
  readonly #own = new OwnRequests();

  constructor(
    conn: HeldConnection,
    threadId: string,
    clientMessageId: string,
    deps: RuntimeDeps,
  ) {
    this.#conn = conn;
    this.threadId = threadId;
    this.clientMessageId = clientMessageId;
    this.#router = deps.router;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#limits = deps.limits;
    this.#changes = new RunChanges(deps.clock);
    this.#shared = deps.shared ?? false;
    if (deps.turnId !== undefined) {
      this.#turnId = deps.turnId;
      this.#phase = "running";
    }
    conn.listen({
      onNotification: (method, params) => this.#onNotification(method, params),
      onServerRequest: (request) => this.#onServerRequest(request),
      onActivity: () => this.#armStall(),
    });
    void conn.ended.then((error) => this.#onHelperEnded(error));
  }

  /** Starts the watchdog; `queuedSubmissionId` lets a paused queue be restarted. */
  begin(
    queuedSubmissionId: string | undefined,
    onEnd: (runtime: TurnRuntime) => void,
    options: BeginOptions = {},
  ): void {
    this.#queuedSubmissionId = queuedSubmissionId;
    this.#onEnd = onEnd;
    this.#onLost = options.onLost;
    this.#watchdog = options.watchdog ?? true;
    // A fast turn may have ended while the runtime was still being set up.
    if (this.ended) return onEnd(this);
    if (this.#lost) return this.#onLost?.();
    if (this.#watchdog) {
      this.#backstop = this.#clock.after(
        this.#limits.backstopMs,
        () => void this.#stall("backstop"),
      );
    }
    this.#armStall();
  }

  /** The shared connection was lost while the turn ran (it runs on in the daemon). */
  get lost(): boolean {
    return this.#lost;
  }

  /** The turn's status as a read saw it after attaching (an earlier end sends no event). */
  observed(status: string, error?: TurnError | null): void {
    if (status === "completed") this.#finish("completed");
    else if (status === "failed") {
      this.#finish("failed", error?.message, classifyFailure(error?.codexErrorInfo));
    } else if (status === "interrupted") this.#finish("interrupted");
  }

  /**
   * Leaves the turn running (shared connection, at shutdown): its pending
   * requests are forgotten unanswered (they stay pending in the daemon for the
   * next follower); nothing is interrupted or declined. Idempotent.
   */
  detach(): Promise<void> {
    this.#released ??= (async () => {
      this.#stallTimer?.cancel();
      this.#backstop?.cancel();
      this.#router.forget(this);
      await this.#conn.close();
      this.#alive = false;
      this.changed();
    })();
    return this.#released;
  }

  /** Whether the helper is alive. */
  get alive(): boolean {
    return this.#alive;
  }

  /** The connection, for reads on the held thread. */
  get connection(): HeldConnection {
    return this.#conn;
  }

  /** Whether the turn has ended. */
  get ended(): boolean {
    return this.#phase === "completed" || this.#phase === "failed" || this.#phase === "interrupted";
  }

  /** The run as of now. */
  snapshot(): RunSnapshot {
    return {
      threadId: this.threadId,
      clientMessageId: this.clientMessageId,
      turnId: this.#turnId,
      phase: this.#phase,
      failure: this.#failure,
      error: this.#error,
      itemsCompleted: this.#itemsCompleted,
      declined: this.#declined.map((d) => ({ ...d })),
      earlier: this.#story.earlier,
      notes: this.#story.notes,
    };
  }

  /** Progress messages from index `from` on. */
  progressSince(from: number): string[] {
    return this.#changes.since(from);
  }

  /** A counter that moves whenever something a follower cares about happens. */
  get version(): number {
    return this.#changes.version;
  }

  /** Resolves when `version` moves past `seen`, at `untilMs` (clock time), or on abort. */
  waitForChange(seen: number, untilMs: number, signal: AbortSignal): Promise<void> {
    return this.#changes.waitForChange(seen, untilMs, signal);
  }

  /** RuntimeHandle: wakes followers. */
  changed(): void {
    this.#changes.changed();
  }

  /** RuntimeHandle: pauses the stall watchdog while a human is being asked. */
  waitingOnHuman(waiting: boolean): void {
    if (this.#waitingOnHuman === waiting) return;
    this.#waitingOnHuman = waiting;
    if (waiting) this.#note("Waiting on an approval or answer from you");
    this.#armStall();
  }

  /** RuntimeHandle: a request the router declined at once (it cannot be forwarded). */
  declinedUnforwardable(declined: DeclinedRequest): void {
    this.#declined.push({ method: declined.method, summary: declined.summary });
    if (this.#declined.length > MAX_DECLINED_KEPT) this.#declined.shift();
    this.#note(`Declined a request codex-relay cannot forward: ${declined.summary}`);
  }

  /** RuntimeHandle: an accepted answer went to Codex as `decline`, because of `problem`. */
  answerRefused(summary: string, problem: string): void {
    this.addNote(`Your answer to "${summary.slice(0, 120)}" counted as a decline: ${problem}`);
  }

  /** Records something the client should know about the run (results carry it as `notes`). */
  addNote(note: string): void {
    if (this.#story.note(note)) this.#note(note);
  }

  /** RuntimeHandle: answers a server request. */
  respond(rpcId: RpcId, result: unknown): void {
    this.#conn.respond(rpcId, result);
  }

  /** RuntimeHandle: answers a server request with an error. */
  respondError(rpcId: RpcId, code: number, message: string): void {
    this.#conn.respondError(rpcId, code, message);
  }

  /**
   * Interrupts the running turn (`turn/interrupt`) and waits for it to end,
   * within one grace period in all. When Codex refuses or does not confirm,
   * the turn counts as interrupted: releasing the runtime reaps its helper,
   * which ends the turn.
   */
  async interrupt(why = "interrupted"): Promise<void> {
    if (this.ended || !this.#alive) return;
    // On a shared connection the current turn may be someone else's: only ever this run's.
    const turnId = this.#shared ? this.#turnId : this.#currentTurnId ?? this.#turnId;
    this.#note(why === "interrupted" ? "Interrupting the turn" : `Interrupting the turn (${why})`);
    const until = this.#clock.now() + this.#limits.interruptGraceMs;
    let unconfirmed: string | undefined;
    if (turnId) {
      try {
        await this.#conn.call("turn/interrupt", { threadId: this.threadId, turnId }, {
          timeoutMs: this.#limits.interruptGraceMs,
        });
        // Accepted: Codex reports the end with turn/completed.
        const never = new AbortController().signal;
        while (!this.ended && this.#alive && this.#clock.now() < until) {
          await this.waitForChange(this.version, until, never);
        }
        if (!this.ended && this.#alive) {
          unconfirmed =
            "Codex accepted the interrupt but did not report the turn's end in time; codex-relay ended the turn by closing its app-server";
        }
      } catch (error) {
        // Refused, unanswered or the helper failed: no turn/completed is coming.
        const reason = error instanceof RelayError ? error.reason : "unknown";
        this.#log.warn("interrupt failed", { reason });
        unconfirmed =
          `Codex did not confirm the interrupt (${reason}); codex-relay ended the turn by closing its app-server`;
      }
    }
    if (!this.ended) this.#finish("interrupted", unconfirmed, this.#failure);
  }

  /** Releases the thread (unsubscribe) and reaps the helper. Idempotent. */
  release(): Promise<void> {
    this.#released ??= (async () => {
      this.#stallTimer?.cancel();
      this.#backstop?.cancel();
      this.#router.declineAll(this, "the runtime is closing");
      if (this.#alive) {
        try {
          await this.#conn.call("thread/unsubscribe", { threadId: this.threadId }, {
            timeoutMs: 2000,
          });
        } catch {
          // Exiting releases the thread as well.
        }
      }
      this.#router.forget(this);
      await this.#conn.close();
      this.#alive = false;
      this.changed();
    })();
    return this.#released;
  }

  /** A server request: on a shared connection only this run's turn's reach the router. */
  #onServerRequest(request: ServerRequest): void {
    if (this.#shared && !this.#own.take(request, this.#turnId)) {
      // Another turn's (the user's own), or one delivered again: left alone here.
      this.#log.debug("request left alone", { method: request.method });
      return;
    }
    this.#router.receive(this, request.id, request.method, request.params);
  }

  #onNotification(method: string, raw: unknown): void {
    const event = parseTurnEvent(method, raw);
    if (!event || (event.threadId !== undefined && event.threadId !== this.threadId)) return;
    switch (event.kind) {
      case "turnStarted":
        this.#currentTurnId = event.turnId;
        if (this.#turnId === null) this.#note("A turn started");
        break;
      case "item":
        this.#onItem(event.completed, event.turnId ?? this.#currentTurnId, event.item);
        if (!event.completed) {
          this.#onActivity((raw as { item?: unknown } | null)?.item, event.turnId);
        }
        break;
      case "turnCompleted":
        this.#onTurnCompleted(event.turnId, event.status, event.error);
        break;
      case "requestResolved":
        this.#router.resolved(this, event.requestId);
        break;
    }
  }

  #onItem(completed: boolean, turnId: string | null, item: ItemRef): void {
    if (item.type === "userMessage" && this.#turnId === null) {
      if (item.clientId === this.clientMessageId) {
        this.#turnId = turnId;
        this.#phase = "running";
        this.#note("Your message's turn started");
        return;
      }
      this.#onEarlier(typeof item.clientId === "string" ? item.clientId : null, turnId);
      return;
    }
    if (item.type === "mcpToolCall" && item.id !== undefined) {
      if (!completed) this.#toolCalls.add(item.id);
      else this.#toolCalls.delete(item.id);
      this.#armStall();
    }
    if (completed && item.type !== "userMessage" && turnId !== null && turnId === this.#turnId) {
      this.#itemsCompleted++;
    }
  }

  /** A user message of another queued message ran before this runtime's own. */
  #onEarlier(clientMessageId: string | null, turnId: string | null): void {
    const line = this.#story.earlierMessage(clientMessageId, turnId);
    if (line) this.#note(line);
  }

  /** Notes what Codex started doing, in words (kinds and names, never content). */
  #onActivity(item: unknown, turnId: string | null): void {
    const ours = this.#turnId !== null && (turnId ?? this.#currentTurnId) === this.#turnId;
    const line = this.#story.activity(item, ours);
    if (line) this.#note(line);
  }

  #onTurnCompleted(
    id: string | null,
    status: string | undefined,
    error: TurnError | null | undefined,
  ): void {
    if (id === null || id !== this.#turnId) {
      // An earlier queued message's turn ended. After an interrupt Codex pauses the queue.
      this.#currentTurnId = null;
      if (status === "interrupted" && this.#turnId === null && !this.#stalling) {
        void this.#restartQueue();
      }
      return;
    }
    if (status === "completed") this.#finish("completed");
    else if (status === "failed") {
      this.#finish("failed", error?.message, classifyFailure(error?.codexErrorInfo));
    } else this.#finish("interrupted", undefined, this.#failure);
  }

  async #restartQueue(): Promise<void> {
    try {
      await this.#conn.call("thread/queue/start", {
        threadId: this.threadId,
        ...(this.#queuedSubmissionId ? { queuedSubmissionId: this.#queuedSubmissionId } : {}),
      });
    } catch {
      // Already started, or nothing queued: the notifications tell.
    }
  }

  #finish(phase: RunPhase, error?: string, failure?: Failure): void {
    if (this.ended) return;
    this.#phase = phase;
    this.#error = error;
    this.#failure = failure;
    this.#stallTimer?.cancel();
    this.#backstop?.cancel();
    this.#note(`The turn ended: ${phase}`);
    this.#log.info("turn ended", { phase, failureClass: failure?.failureClass });
    this.#onEnd?.(this);
  }

  #onHelperEnded(error: RelayError): void {
    this.#alive = false;
    if (this.#shared && !this.ended && this.#released === undefined) {
      // The daemon runs the turn on: this runtime only lost sight of it.
      this.#lost = true;
      this.#stallTimer?.cancel();
      this.#backstop?.cancel();
      this.#log.info("lost the turn's connection; the turn runs on", { reason: error.reason });
      this.#router.forget(this);
      this.changed();
      this.#onLost?.();
      return;
    }
    if (!this.ended) {
      this.#finish(
        "failed",
        `The connection to the app-server ended during the turn (${error.reason}): ${error.message}`,
        {
          failureClass: "internal",
          retryable: false,
        },
      );
    }
    this.#router.forget(this);
    this.changed();
  }

  #armStall(): void {
    this.#stallTimer?.cancel();
    this.#stallTimer = undefined;
    if (
      this.ended || !this.#alive || this.#waitingOnHuman || this.#onEnd === undefined ||
      !this.#watchdog
    ) return;
    const budget = this.#toolCalls.size > 0 ? this.#limits.toolCallStallMs : this.#limits.stallMs;
    this.#stallTimer = this.#clock.after(budget, () => void this.#stall("stalled"));
  }

  async #stall(why: "stalled" | "backstop"): Promise<void> {
    if (this.ended || this.#stalling) return;
    this.#stalling = true;
    this.#failure = stalledFailure(this.#itemsCompleted > 0);
    this.#log.warn("turn stalled", { why });
    await this.interrupt(
      why === "stalled" ? "no activity within the stall budget" : "the turn ran past the backstop",
    );
    this.#finish("interrupted", undefined, this.#failure);
  }

  #note(message: string): void {
    this.#changes.note(message);
  }
}
