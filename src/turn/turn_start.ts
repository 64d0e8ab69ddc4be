/**
 * Starting a turn in this relay (`codex_run`): on a held connection, queue
 * the message into the thread (or start a new thread in a cwd and queue it
 * there), load the thread, start the message, and hand the runtime to the
 * registry. One budget covers the whole start.
 * @module
 */

import { asRelayError, type ReasonCode, RelayError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Clock } from "../core/clock.ts";
import {
  type Connection,
  type HeldConnection,
  heldSession,
  type Session,
} from "../connect/connection.ts";
import {
  type Attempt,
  loginProblem,
  missingDirectory,
  ModelCatalogue,
  nameThread,
  REASON_MESSAGES,
  REMEMBERED_THREADS,
  schemaRefusal,
  type StartResult,
  threadRead,
} from "./start_checks.ts";
import { grantedEnv } from "../core/granted_env.ts";
import { confirmUnknown, queueMessage } from "../ops/queue_message.ts";
import type { McpServerMissing, Receipt } from "../reply/schemas.ts";
import { resolveThread } from "../ops/resolve_thread.ts";
import { QueuedHere } from "../ops/queued_here.ts";
import { mintRunId } from "../ops/run_id.ts";
import { readConfig, recursionOverrides } from "./recursion_guard.ts";
import {
  type Applied,
  checkTightening,
  runConfig,
  type RunOptions,
  runParams,
  tighterOf,
} from "./run_options.ts";
import { resumeThenQueue } from "./resume_then_queue.ts";
import { jobBody, type JobContext } from "./job_start.ts";
import type { RunJob } from "./run_job.ts";
import type { ReviewTarget } from "../codex/methods.ts";
import { serversToStart, type StartingServer } from "../ops/mcp_startup.ts";
import { afterLoadWait, watchMcpStartup } from "../ops/mcp_wait.ts";
import {
  CANCELLED_START,
  cancelledByInterrupt,
  type Run,
  type TurnRegistry,
} from "./turn_registry.ts";
import type { TurnRuntime } from "./turn_runtime.ts";
import { canonicalRef, isUuid } from "../ops/inputs.ts";

import type { Claim } from "./start_checks.ts";

/**
 * The result of a start an interrupt cancelled before its message was
 * queued: `not_sent`, `cancelled`, nothing started.
 */
function cancelledStart(run: Run<TurnRuntime> | undefined): StartResult | undefined {
  if (!run || !cancelledByInterrupt(run)) return undefined;
  const message = CANCELLED_START;
  return {
    receipt: {
      status: "not_sent",
      reason: "cancelled",
      message,
      clientMessageId: run.clientMessageId,
      threadId: run.threadId,
    },
    reason: "cancelled",
    message,
  };
}

/** What starting turns needs. */
export interface StartDeps {
  connection: Connection;
  registry: TurnRegistry;
  clock: Clock;
  log: Logger;
  /** MCP server names to disable in relay-run turns (`--disable-codex-mcp-server`). */
  disabledMcpServers: readonly string[];
  /** The relay's environment, for the key variables (default: read without prompting). */
  env?: (name: string) => string | undefined;
  /** The messages this relay queued (shared with codex_queue_message; default: a new record). */
  queuedHere?: QueuedHere;
}

export type { StartResult } from "./start_checks.ts";

/** The budget of a whole start: waiting for a connection, opening it, and every RPC. */
export const START_BUDGET_MS = 20_000;

/** Starts turns. */
export class TurnStarts {
  readonly #deps: StartDeps;
  /** The messages this relay process queued: the only ones codex_withdraw_message deletes. */
  readonly queuedHere: QueuedHere;
  /** What this relay's runs left with each thread (Codex keeps it for later turns). */
  readonly #applied = new Map<string, Applied>();
  /** `model/list`, read at the first run that names a model or an effort. */
  readonly #models = new ModelCatalogue();

  constructor(deps: StartDeps) {
    this.#deps = deps;
    this.queuedHere = deps.queuedHere ?? new QueuedHere();
  }

  /**
   * Queues `text` into the thread `ref` (a UUID or a unique exact name),
   * resumes it in a new runtime with the options and starts the message.
   */
  inThread(
    ref: string,
    text: string,
    signal: AbortSignal,
    options: RunOptions = {},
  ): Promise<StartResult> {
    const { registry } = this.#deps;
    if (options.outputSchema !== undefined) {
      const schema = options.outputSchema;
      return schemaRefusal(schema, ref) ??
        this.#job({ threadId: ref }, { kind: "structured", schema }, text, signal, options);
    }
    // A UUID names the thread before any step: the run exists from the first one.
    const known = isUuid(ref) ? canonicalRef(ref) : undefined;
    return this.#start(signal, known, async (conn, session, claim) => {
      const threadId = await resolveThread(session, ref);
      if (threadId instanceof RelayError) {
        return { reason: threadId.reason, message: threadId.message };
      }
      const run = claim(threadId);
      if (!run) return { reason: "turn_running", threadId };
      const read = await threadRead(session, threadId);
      const { config, servers } = await this.#config(
        session,
        read.cwd,
        options,
        this.#applied.get(threadId),
      );
      // A thread loaded already started its servers then: only a load here waits for them.
      const watch = watchMcpStartup(conn, this.#deps.clock);
      let mcpServers: McpServerMissing[] = [];
      const attempt = await resumeThenQueue(registry, conn, session, run, {
        text,
        config,
        resumeParams: runParams(options),
        options,
        afterLoad: async (runtime) => {
          mcpServers = await afterLoadWait(
            watch,
            threadId,
            read.loaded ? [] : servers,
            session,
            runtime.addNote.bind(runtime),
          );
        },
      }).finally(watch.stop);
      // Refused after the resume: a loaded thread kept its own settings.
      if (attempt.reason !== "not_allowed") this.#remember(threadId, options);
      return { ...attempt, mcpServers };
    });
  }

  /** Starts a new thread in `cwd` (named, with the options) in a new runtime and runs `text` there. */
  inCwd(
    cwd: string,
    text: string,
    signal: AbortSignal,
    options: RunOptions = {},
  ): Promise<StartResult> {
    const { registry } = this.#deps;
    if (options.outputSchema !== undefined) {
      const schema = options.outputSchema;
      return schemaRefusal(schema, "") ??
        this.#job({ cwd }, { kind: "structured", schema }, text, signal, options);
    }
    return this.#start(signal, undefined, async (conn, session, claim) => {
      const missing = await missingDirectory(session, cwd);
      if (missing) return { reason: "cwd_not_found", message: missing };
      const { config, servers } = await this.#config(session, cwd, options);
      const watch = watchMcpStartup(conn, this.#deps.clock);
      const { threadId } = await session.call("thread/start", {
        cwd,
        ...runParams(options),
        config,
      }).catch((error) => {
        watch.stop();
        throw error;
      });
      this.#remember(threadId, options);
      const run = claim(threadId);
      if (!run) return { reason: "turn_running", threadId };
      conn.follow(threadId);
      const runtime = registry.adopt(conn, run);
      if (options.name !== undefined) await nameThread(session, runtime, options.name);
      const mcpServers = await afterLoadWait(
        watch,
        threadId,
        servers,
        session,
        runtime.addNote.bind(runtime),
      );
      registry.writing(run);
      const receipt = await queueMessage(session, threadId, text, run.clientMessageId);
      if (receipt.status !== "queued") return { receipt, runtime, failed: true };
      await registry.launch(conn, runtime, receipt);
      return { receipt, runtime, mcpServers };
    });
  }

  /**
   * Reviews (`review/start`) inline on the thread `ref` when it is idle, or on
   * a new thread in `cwd` (read-only: the tightest sandbox). The review's
   * `clientMessageId` is minted here: Codex takes none for reviews.
   */
  review(
    where: { threadId: string } | { cwd: string },
    target: ReviewTarget,
    signal: AbortSignal,
    options: RunOptions = {},
  ): Promise<StartResult> {
    const job: RunJob = { kind: "review", target };
    return "threadId" in where
      ? this.#job(where, job, "", signal, options)
      : this.#job(where, job, "", signal, { ...options, sandbox: "read-only" });
  }

  /**
   * Starts `job` (a structured run, a review) on the thread `where.threadId`
   * when it is idle, or on a new thread in `where.cwd` (`job_start.ts`).
   */
  #job(
    where: { threadId: string } | { cwd: string },
    job: Exclude<RunJob, { kind: "message" }>,
    text: string,
    signal: AbortSignal,
    options: RunOptions,
  ): Promise<StartResult> {
    const ref = "threadId" in where ? where.threadId : undefined;
    const known = ref !== undefined && isUuid(ref) ? canonicalRef(ref) : undefined;
    const ctx: JobContext = {
      registry: this.#deps.registry,
      clock: this.#deps.clock,
      config: (session, cwd, applied) => this.#config(session, cwd, options, applied),
      applied: (threadId) => this.#applied.get(threadId),
      remember: (threadId) => this.#remember(threadId, options),
    };
    return this.#start(signal, known, jobBody(ctx, where, text, options), job);
  }

  /**
   * Reads the configuration once (`config/read` at the thread's cwd, so with
   * the layers a plain resume or start there applies): refuses options
   * looser than it, and returns the `config` overrides (recursion guard,
   * effort) and the MCP servers a load with them starts. Options that pass
   * only tighten, so what they leave with the thread (Codex keeps resume
   * overrides for later turns) is never looser.
   */
  async #config(
    session: Session,
    cwd: string,
    options: RunOptions,
    applied?: Applied,
  ): Promise<{ config: Record<string, unknown>; servers: readonly StartingServer[] }> {
    await this.#models.check(session, options);
    const read = await readConfig(session.call, cwd, this.#deps.log);
    checkTightening(read, options, applied);
    const guard = recursionOverrides(read, this.#deps.disabledMcpServers, this.#deps.log);
    const config = runConfig(guard, options);
    return { config, servers: serversToStart(read, config) };
  }

  /**
   * Remembers what a start or resume with `options` leaves with the thread
   * (sent from here on: it may apply even when the start then fails).
   */
  #remember(threadId: string, options: RunOptions): void {
    if (options.sandbox === undefined && options.approvalPolicy === undefined) return;
    const next = tighterOf(this.#applied.get(threadId) ?? {}, options);
    this.#applied.delete(threadId);
    this.#applied.set(threadId, next);
    if (this.#applied.size > REMEMBERED_THREADS) {
      this.#applied.delete(this.#applied.keys().next().value!);
    }
  }

  /**
   * Runs `body` on a held connection under the start budget. The message's
   * `clientMessageId` is minted here, so a start that fails before queueing
   * still reports a receipt: `not_sent`, with an id that was never sent. The
   * run is registered on its thread (`claim`) as soon as the thread is known:
   * here when `threadId` is given, so from the first step an interrupt
   * cancels it and a second run on the thread is refused.
   */
  async #start(
    signal: AbortSignal,
    threadId: string | undefined,
    body: (conn: HeldConnection, session: Session, claim: Claim) => Promise<Attempt>,
    job?: RunJob,
  ): Promise<StartResult> {
    const { connection, registry, clock } = this.#deps;
    const clientMessageId = mintRunId();
    const notSent = (reason: ReasonCode, message: string, id = threadId ?? ""): StartResult => ({
      receipt: { status: "not_sent", reason, message, clientMessageId, threadId: id },
      reason,
      message,
    });
    if (registry.closing) return notSent("cancelled", "codex-relay is shutting down");
    const stop = new AbortController();
    let run: Run<TurnRuntime> | undefined;
    const claim: Claim = (id) => {
      if (run) return run.threadId === id ? run : undefined;
      run = registry.begin(id, clientMessageId, undefined, job);
      run?.cancel.signal.addEventListener("abort", () => stop.abort(), { once: true });
      return run;
    };
    if (threadId !== undefined && !claim(threadId)) {
      return notSent("turn_running", REASON_MESSAGES.turn_running!);
    }
    const both = AbortSignal.any([signal, stop.signal]);
    const begun = clock.now();
    let conn: HeldConnection;
    try {
      conn = await connection.hold({ signal: both, budgetMs: START_BUDGET_MS });
    } catch (error) {
      const e = asRelayError(error);
      if (run) registry.drop(run);
      return cancelledStart(run) ?? notSent(e.reason, e.message);
    }
    const session = heldSession(conn, both, START_BUDGET_MS - (clock.now() - begun), clock);
    let attempt: Attempt;
    try {
      attempt = await loginProblem(session, this.#deps.env ?? grantedEnv) ??
        await body(conn, session, claim);
    } catch (error) {
      const e = asRelayError(error);
      attempt = { reason: e.reason, message: e.message, failed: true };
    }
    return await this.#outcome(attempt, conn, run, signal, session, notSent);
  }

  /** What a start's attempt comes to: its runtime, or why none runs (the run dropped). */
  async #outcome(
    attempt: Attempt,
    conn: HeldConnection,
    run: Run<TurnRuntime> | undefined,
    signal: AbortSignal,
    session: Session,
    notSent: (reason: ReasonCode, message: string, id?: string) => StartResult,
  ): Promise<StartResult> {
    if (attempt.receipt && attempt.receipt.status !== "not_sent") {
      this.queuedHere.record(attempt.receipt.threadId, attempt.receipt.clientMessageId);
    }
    if (attempt.runtime && !attempt.failed && !attempt.reason && attempt.receipt) {
      const { mcpServers } = attempt;
      return {
        receipt: attempt.receipt,
        runtime: attempt.runtime,
        ...(mcpServers?.length ? { mcpServers } : {}),
      };
    }
    if (run) this.#deps.registry.drop(run);
    const broken = conn.failure !== undefined;
    await conn.close();
    let receipt = attempt.receipt;
    const cancelled = receipt ? undefined : cancelledStart(run);
    if (cancelled) return cancelled;
    let reason = attempt.reason;
    let message = attempt.message;
    if (receipt?.status === "unknown" && broken) {
      // The connection failed before the relay could look the message up: look on a fresh
      // one, as codex_queue_message does. The message is never sent again.
      reason ??= receipt.reason;
      message ??= receipt.message;
      receipt = await this.#confirm(receipt, signal, session.remainingMs());
    }
    reason ??= receipt?.reason ?? "protocol_error";
    // A job's refusal says its own (nothing is queued for it); a message's, the usual.
    const own = attempt.ownMessage ? message : undefined;
    message = own ?? REASON_MESSAGES[reason] ?? message ?? receipt?.message ?? "";
    return receipt ? { receipt, reason, message } : notSent(reason, message, attempt.threadId);
  }

  /** Looks an `unknown` receipt's message up in the thread's queue on a fresh operation. */
  async #confirm(receipt: Receipt, signal: AbortSignal, budgetMs: number): Promise<Receipt> {
    if (budgetMs <= 0) return receipt;
    return await this.#deps.connection
      .operation((s) => confirmUnknown(s, receipt), { signal, budgetMs, label: "confirm" })
      .catch(() => receipt);
  }
}
