/**
 * The turn runtimes of this relay, one per thread: starting them (queue,
 * resume or start, run), finding them for followers and `codex_interrupt`,
 * keeping a short record of finished runs, and ending them all at shutdown.
 * @module
 */

import { asRelayError, RelayError } from "../core/errors.ts";
import type { ElicitationRouter } from "../elicit/router.ts";
import type { Logger } from "../core/log.ts";
import type { Clock } from "../core/clock.ts";
import {
  type Connection,
  type HeldConnection,
  heldSession,
  type Session,
} from "../connect/connection.ts";
import { confirmUnknown, queueMessage, type Receipt } from "../ops/queue_message.ts";
import { recursionOverrides } from "./recursion_guard.ts";
import { type RunSnapshot, type TurnLimits, TurnRuntime } from "./turn_runtime.ts";

/** Reads the replies of a finished run on the runtime's own helper (reply-read level only). */
export type ReadReplies = (
  session: Session,
  threadId: string,
  clientMessageId: string,
) => Promise<unknown>;

/** What the registry is built from. */
export interface TurnDeps {
  owner: Connection;
  router: ElicitationRouter;
  clock: Clock;
  log: Logger;
  limits: TurnLimits;
  /** MCP server names to disable in relay-run turns (`--disable-codex-mcp-server`). */
  disabledMcpServers: readonly string[];
  /** Present at the reply-read level: how finished runs read their replies. */
  readReplies?: ReadReplies;
}

/** A finished run, kept for the followers that come after it ended. */
export interface FinishedRun {
  snapshot: RunSnapshot;
  /** The read-reply result, at the reply-read level. */
  replies?: unknown;
}

/** How a start went. */
export interface StartResult {
  receipt: Receipt;
  runtime?: TurnRuntime;
  reason?: RelayError["reason"];
  message?: string;
}

const FINISHED_TTL_MS = 10 * 60 * 1000;
const FINISHED_MAX = 200;
const START_BUDGET_MS = 20_000;

/** The registry. */
export class TurnRegistry {
  readonly #deps: TurnDeps;
  readonly #active = new Map<string, TurnRuntime>();
  readonly #byId = new Map<string, TurnRuntime>();
  readonly #settled = new Map<string, Promise<FinishedRun>>();
  readonly #finished = new Map<string, { run: FinishedRun; at: number }>();
  #closing = false;

  constructor(deps: TurnDeps) {
    this.#deps = deps;
  }

  /** The runtime running on `threadId`, if any. */
  active(threadId: string): TurnRuntime | undefined {
    return this.#active.get(threadId);
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
    const now = this.#deps.clock.now();
    for (const [key, value] of this.#finished) {
      if (now - value.at > FINISHED_TTL_MS) this.#finished.delete(key);
    }
    return this.#finished.get(`${threadId}\0${clientMessageId}`)?.run;
  }

  /** Queues `text` into the thread, resumes it in a new runtime and starts the message. */
  startInThread(threadId: string, text: string, signal: AbortSignal): Promise<StartResult> {
    return this.#start(signal, threadId, async (conn, session, log) => {
      if (this.#active.has(threadId)) return { reason: "turn_running" as const };
      const config = await recursionOverrides(
        session.call,
        undefined,
        this.#deps.disabledMcpServers,
        log,
      );
      const receipt = await queueMessage(session, threadId, text);
      if (receipt.status !== "queued") return { receipt, failed: true };
      const runtime = this.#runtimeFor(conn, threadId, receipt.clientMessageId);
      try {
        await session.call("thread/resume", { threadId, excludeTurns: true, config });
      } catch (error) {
        const e = asRelayError(error);
        // Answered with an error: the thread was not loaded and the message stays queued.
        // Otherwise Codex may have loaded the thread and started the message (it starts
        // queued messages on resume) before the connection failed.
        const message = e.written && e.rpcCode === undefined
          ? `${e.message}. Codex may have loaded the thread and started the message anyway`
          : e.message;
        return { receipt, reason: e.reason, message, runtime, failed: true };
      }
      await this.#startQueued(conn, runtime, receipt);
      return { receipt, runtime };
    });
  }

  /** Starts a new thread in `cwd` in a new runtime and runs `text` there. */
  startInCwd(cwd: string, text: string, signal: AbortSignal): Promise<StartResult> {
    return this.#start(signal, "", async (conn, session, log) => {
      const config = await recursionOverrides(
        session.call,
        cwd,
        this.#deps.disabledMcpServers,
        log,
      );
      const started = await session.call("thread/start", { cwd, config }) as {
        thread?: { id?: unknown };
      };
      const threadId = started?.thread?.id;
      if (typeof threadId !== "string") {
        throw new RelayError("protocol_error", "thread/start did not return a thread id");
      }
      const runtime = this.#runtimeFor(conn, threadId, crypto.randomUUID());
      const receipt = await queueMessage(session, threadId, text, runtime.clientMessageId);
      if (receipt.status !== "queued") return { receipt, runtime, failed: true };
      await this.#startQueued(conn, runtime, receipt);
      return { receipt, runtime };
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
    this.#deps.router.declineAll(undefined, "codex-relay is shutting down");
    await Promise.all([...this.#byId.values()].map(async (runtime) => {
      await runtime.interrupt("codex-relay is shutting down").catch(() => {});
      await this.settled(runtime).catch(() => {});
      await runtime.release();
    }));
  }

  async #start(
    signal: AbortSignal,
    threadId: string,
    body: (conn: HeldConnection, session: Session, log: Logger) => Promise<
      Partial<StartResult> & { failed?: boolean }
    >,
  ): Promise<StartResult> {
    const placeholder = (reason: RelayError["reason"], message: string): StartResult => ({
      receipt: { status: "not_sent", reason, message, clientMessageId: "", threadId },
      reason,
      message,
    });
    if (this.#closing) return placeholder("cancelled", "codex-relay is shutting down");
    // One budget for the whole start: waiting for a helper, spawning it, and every RPC.
    const clock = this.#deps.clock;
    const begun = clock.now();
    let conn: HeldConnection;
    try {
      conn = await this.#deps.owner.hold({ signal, budgetMs: START_BUDGET_MS });
    } catch (error) {
      const e = asRelayError(error);
      const helpers = this.#deps.owner.limits.helpers;
      return placeholder(
        e.reason,
        e.reason === "busy"
          ? `All ${helpers} helpers stayed in use for ${
            START_BUDGET_MS / 1000
          } s (each turn codex-relay runs holds one until it ends)`
          : e.message,
      );
    }
    const session = heldSession(conn, signal, START_BUDGET_MS - (clock.now() - begun), clock);
    let outcome;
    try {
      outcome = await body(conn, session, this.#deps.log);
    } catch (error) {
      const e = asRelayError(error);
      outcome = { reason: e.reason, message: e.message, failed: true };
    }
    const { runtime, failed } = outcome;
    let reason = outcome.reason;
    if (!runtime || failed || reason) {
      if (runtime) this.#drop(runtime);
      const broken = conn.failure !== undefined;
      await conn.close();
      let receipt = outcome.receipt ??
        placeholder(reason ?? "protocol_error", outcome.message ?? "").receipt;
      if (receipt.status === "unknown" && broken) {
        // The helper failed before the relay could look the message up: look on a fresh one,
        // as codex_queue_message does. The message is never sent again.
        reason ??= receipt.reason as RelayError["reason"] | undefined;
        outcome.message ??= receipt.message;
        receipt = await this.#confirm(receipt, signal, session.remainingMs());
      }
      const message = reason === "turn_running"
        ? "codex-relay is already running a turn on this thread: follow it with codex_wait_reply or stop it with codex_interrupt"
        : reason === "held_elsewhere"
        ? "Another Codex process has this thread open. The message stays queued: that process runs it after its own next turn completes"
        : outcome.message;
      return { receipt, reason, message };
    }
    return { receipt: outcome.receipt!, runtime };
  }

  /** Looks an `unknown` receipt's message up in the thread's queue on a fresh helper. */
  async #confirm(receipt: Receipt, signal: AbortSignal, budgetMs: number): Promise<Receipt> {
    if (budgetMs <= 0) return receipt;
    return await this.#deps.owner
      .operation((s) => confirmUnknown(s, receipt), { signal, budgetMs, label: "confirm" })
      .catch(() => receipt);
  }

  #runtimeFor(conn: HeldConnection, threadId: string, clientMessageId: string): TurnRuntime {
    const runtime = new TurnRuntime(conn, threadId, clientMessageId, {
      router: this.#deps.router,
      clock: this.#deps.clock,
      log: this.#deps.log,
      limits: this.#deps.limits,
    });
    this.#active.set(threadId, runtime);
    this.#byId.set(runtime.id, runtime);
    return runtime;
  }

  #drop(runtime: TurnRuntime): void {
    if (this.#active.get(runtime.threadId) === runtime) this.#active.delete(runtime.threadId);
    this.#byId.delete(runtime.id);
    this.#deps.router.forget(runtime);
  }

  async #startQueued(conn: HeldConnection, runtime: TurnRuntime, receipt: Receipt): Promise<void> {
    let resolve!: (run: FinishedRun) => void;
    this.#settled.set(runtime.id, new Promise((r) => (resolve = r)));
    runtime.begin(receipt.queuedSubmissionId, () => void this.#settle(runtime).then(resolve));
    try {
      await conn.call("thread/queue/start", {
        threadId: receipt.threadId,
        ...(receipt.queuedSubmissionId ? { queuedSubmissionId: receipt.queuedSubmissionId } : {}),
      });
    } catch {
      // "queue is empty" / "active or pending turn": Codex started it (or an earlier message) itself.
    }
  }

  async #settle(runtime: TurnRuntime): Promise<FinishedRun> {
    const run: FinishedRun = { snapshot: runtime.snapshot() };
    if (this.#deps.readReplies && runtime.alive) {
      try {
        const session = heldSession(
          runtime.connection,
          new AbortController().signal,
          START_BUDGET_MS,
          this.#deps.clock,
        );
        run.replies = await this.#deps.readReplies(
          session,
          runtime.threadId,
          runtime.clientMessageId,
        );
      } catch (error) {
        this.#deps.log.warn("reading replies failed", { reason: asRelayError(error).reason });
      }
    }
    const key = `${runtime.threadId}\0${runtime.clientMessageId}`;
    this.#finished.set(key, { run, at: this.#deps.clock.now() });
    while (this.#finished.size > FINISHED_MAX) {
      this.#finished.delete(this.#finished.keys().next().value!);
    }
    this.#drop(runtime);
    await runtime.release();
    this.#settled.delete(runtime.id);
    return run;
  }
}
