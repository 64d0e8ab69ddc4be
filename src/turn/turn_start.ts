/**
 * Starting a run: `codex_run` (a message, or with `outputSchema` a structured
 * run) and `codex_review`. Read top to bottom, a start is:
 *
 * 1. `#start`: the run's `clientMessageId` minted; a connection held, with one
 *    budget ({@linkcode START_BUDGET_MS}) for the whole start; the login
 *    checked (`account/read`).
 * 2. `#run`: the thread named (`thread/read`) or a new one in a
 *    cwd (`thread/start`); the run's settings checked against the
 *    configuration there (`start_checks.ts`); the run claimed on the thread
 *    as soon as it is known (one run per thread, `turn_running`; from then an
 *    interrupt cancels the start: `not_sent`, `cancelled`).
 * 3. then a runtime follows the thread; a new thread is named, an existing
 *    one loaded (`thread/resume`); the MCP servers the load started are
 *    waited for; the run's work is sent (a message queued and its queue
 *    started, a structured run or review its own turn: `load_and_send.ts`).
 * 4. back in `#start`: the runtime handed on, or why none runs.
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
import { loginProblem, missingDirectory, RunSettings } from "./start_checks.ts";
import { loadThread, sendWork } from "./load_and_send.ts";
import { grantedEnv } from "../core/granted_env.ts";
import { confirmUnknown } from "../ops/queue_message.ts";
import type { McpServerMissing, Receipt } from "../reply/schemas.ts";
import { resolveThread } from "../ops/resolve_thread.ts";
import { QueuedHere } from "../ops/queued_here.ts";
import { mintRunId } from "../reply/run_id.ts";
import { type RunOptions, runParams } from "./run_options.ts";
import { jobKind, MESSAGE_JOB, type RunJob } from "./run_job.ts";
import type { ReviewTarget } from "../codex/methods.ts";
import { afterLoadWait, watchMcpStartup } from "./mcp_wait.ts";
import { McpMemory } from "./mcp_memory.ts";
import {
  CANCELLED_START,
  cancelledByInterrupt,
  type Run,
  type TurnRegistry,
} from "./turn_registry.ts";
import type { TurnRuntime } from "./turn_runtime.ts";
import { canonicalRef, isUuid } from "../reply/inputs.ts";
import type { WorktreeDeps } from "../ops/worktree.ts";
import { type Destination, THREAD } from "./run_facts.ts";
import { startInWorktree } from "./worktree_start.ts";

/** What starting runs needs. */
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

/** How a start went: a runtime following the turn, or (`reason`, `message`) why there is none. */
export interface StartResult {
  receipt: Receipt;
  runtime?: TurnRuntime;
  reason?: ReasonCode;
  message?: string;
  /** The thread's MCP servers the turn runs without (failed, or not ready in time). */
  mcpServers?: McpServerMissing[];
}

/** The budget of a whole start: waiting for a connection, opening it, and every RPC. */
export const START_BUDGET_MS = 20_000;

/** The usual text of a start's reason, for a refusal that gives none of its own. */
export const REASON_MESSAGES: Partial<Record<ReasonCode, string>> = {
  turn_running:
    "codex-relay is already running a turn on this thread: follow it with codex_wait_reply or stop it with codex_interrupt",
  held_elsewhere:
    "Another Codex process has this thread open. The message stays queued: that process runs it after its own next turn completes",
};

/** Where a run goes: a thread (UUID or exact name), a new one in a cwd, or in a worktree of it. */
type Where =
  | { threadId: string }
  | { cwd: string }
  | { cwd: string; worktree: { name: string; deps: WorktreeDeps | undefined } };

/** One start's call: what it runs, its id, and how it says it sent nothing. */
interface StartCall {
  job: RunJob;
  text: string;
  signal: AbortSignal;
  options: RunOptions;
  clientMessageId: string;
  notSent: (reason: ReasonCode, message: string, id?: string) => StartResult;
}

/** Registers the run on its thread once the start knows it; undefined: the thread has a run. */
type Claim = (threadId: string) => Run<TurnRuntime> | undefined;

/** How a start's steps went: a runtime following its run's turn, or why none runs. */
type Attempt =
  | { runtime: TurnRuntime; receipt: Receipt; mcpServers: McpServerMissing[] }
  | { receipt?: Receipt; reason?: ReasonCode; message?: string; threadId?: string };

/** Starts runs. */
export class TurnStarts {
  readonly #deps: StartDeps;
  /** The messages this relay process queued: the only ones codex_withdraw_message deletes. */
  readonly queuedHere: QueuedHere;
  /** The settings runs send their threads: checked, and what they left remembered. */
  readonly #settings: RunSettings;
  /** The MCP servers not up at an earlier start: not waited for again for a while. */
  readonly #mcpKnown: McpMemory;

  constructor(deps: StartDeps) {
    this.#deps = deps;
    this.#mcpKnown = new McpMemory(deps.clock);
    this.queuedHere = deps.queuedHere ?? new QueuedHere();
    this.#settings = new RunSettings(deps.log, deps.disabledMcpServers);
  }

  /**
   * Runs `text` in the thread `ref` (a UUID or a unique exact name): queued
   * and started; with `options.outputSchema`, a structured turn on the idle thread.
   */
  inThread(
    ref: string,
    text: string,
    signal: AbortSignal,
    options: RunOptions = {},
  ): Promise<StartResult> {
    return this.#start({ threadId: ref }, jobOf(options), text, signal, options);
  }

  /** Runs `text` in a new thread in `cwd` (named, with the options). */
  inCwd(
    cwd: string,
    text: string,
    signal: AbortSignal,
    options: RunOptions = {},
  ): Promise<StartResult> {
    return this.#start({ cwd }, jobOf(options), text, signal, options);
  }

  /**
   * Runs `text` in a new thread in a new worktree `worktree.name` of `cwd`'s
   * repository (in the same folder of it as `cwd` is of the repository).
   * The worktree is made after the run's checks, and taken down again when
   * nothing was sent; the run's results name it.
   */
  inWorktree(
    cwd: string,
    worktree: { name: string; deps: WorktreeDeps | undefined },
    text: string,
    signal: AbortSignal,
    options: RunOptions = {},
  ): Promise<StartResult> {
    return this.#start({ cwd, worktree }, jobOf(options), text, signal, options);
  }

  /**
   * Reviews (`review/start`) inline on the thread `where.threadId` when it is
   * idle, or on a new thread in `where.cwd` (read-only: the tightest sandbox).
   * The review's `clientMessageId` is minted here: Codex takes none for reviews.
   */
  review(
    where: Where,
    target: ReviewTarget,
    signal: AbortSignal,
    options: RunOptions = {},
  ): Promise<StartResult> {
    const own: RunOptions = "cwd" in where ? { ...options, sandbox: "read-only" } : options;
    return this.#start(where, { kind: "review", target }, "", signal, own);
  }

  /**
   * Compacts the thread `ref` (`thread/compact/start`) when it is idle, as a
   * run of its own (one per thread; followed and interruptible like a turn).
   */
  compact(ref: string, signal: AbortSignal): Promise<StartResult> {
    return this.#start({ threadId: ref }, { kind: "compact" }, "", signal, {});
  }

  /**
   * Runs the start on a held connection under the start budget. The
   * `clientMessageId` is minted here, so a start that fails before queueing
   * still reports a receipt: `not_sent`, with an id that was never sent. A
   * UUID names the thread before any step: the run is claimed at once, so
   * from the first step an interrupt cancels it and a second run on the
   * thread is refused. Then what the attempt comes to: its runtime, or why
   * none runs (the run dropped; one an interrupt cancelled while it started
   * is `not_sent`, `cancelled`).
   */
  async #start(
    where: Where,
    job: RunJob,
    text: string,
    signal: AbortSignal,
    options: RunOptions,
  ): Promise<StartResult> {
    const ref = "threadId" in where ? where.threadId : undefined;
    const known = ref !== undefined && isUuid(ref) ? canonicalRef(ref) : undefined;
    const clientMessageId = mintRunId();
    const notSent = (reason: ReasonCode, message: string, id = known ?? ""): StartResult => ({
      receipt: { status: "not_sent", reason, message, clientMessageId, threadId: id },
      reason,
      message,
    });
    const badSchema = await jobKind(job).problem(job);
    if (badSchema) return notSent("invalid_schema", badSchema, ref ?? "");
    if (this.#deps.registry.closing) return notSent("cancelled", "codex-relay is shutting down");
    const call: StartCall = { job, text, signal, options, clientMessageId, notSent };
    const start = (at: Where, destination: Destination) => this.#started(at, destination, call);
    if (!("worktree" in where)) {
      return await start(where, "cwd" in where ? { kind: "cwd", cwd: where.cwd } : THREAD);
    }
    return await startInWorktree(where.cwd, where.worktree, notSent, start);
  }

  /** The start of a run whose destination is known (a worktree made). */
  async #started(where: Where, destination: Destination, call: StartCall): Promise<StartResult> {
    const { job, text, signal, options, clientMessageId, notSent } = call;
    const { connection, registry, clock } = this.#deps;
    const ref = "threadId" in where ? where.threadId : undefined;
    const known = ref !== undefined && isUuid(ref) ? canonicalRef(ref) : undefined;
    const stop = new AbortController();
    let run: Run<TurnRuntime> | undefined;
    const claim: Claim = (id) => {
      if (run) return run.threadId === id ? run : undefined;
      run = registry.begin(id, clientMessageId, undefined, job, destination);
      run?.cancel.signal.addEventListener("abort", () => stop.abort(), { once: true });
      return run;
    };
    const cancelled = () =>
      run && cancelledByInterrupt(run)
        ? notSent("cancelled", CANCELLED_START, run.threadId)
        : undefined;
    if (known !== undefined && !claim(known)) {
      return notSent("turn_running", REASON_MESSAGES.turn_running!);
    }
    const both = AbortSignal.any([signal, stop.signal]);
    const begun = clock.now();
    let conn: HeldConnection;
    try {
      conn = await connection.hold({ signal: both, budgetMs: START_BUDGET_MS });
    } catch (error) {
      const e = asRelayError(error);
      if (run) registry.drop(run, signal.aborted);
      return cancelled() ?? notSent(e.reason, e.message);
    }
    const session = heldSession(conn, both, START_BUDGET_MS - (clock.now() - begun), clock);
    let attempt: Attempt;
    try {
      attempt = await loginProblem(session, this.#deps.env ?? grantedEnv) ??
        await this.#run(conn, session, claim, where, text, options);
    } catch (error) {
      const e = asRelayError(error);
      attempt = { reason: e.reason, message: e.message };
    }
    let { receipt } = attempt;
    if (receipt && receipt.status !== "not_sent") {
      this.queuedHere.record(receipt.threadId, receipt.clientMessageId);
    }
    if ("runtime" in attempt) {
      const { runtime, mcpServers } = attempt;
      return { receipt: attempt.receipt, runtime, ...(mcpServers.length ? { mcpServers } : {}) };
    }
    // The client cancelled the call before anything was sent: the run ends interrupted.
    if (run) registry.drop(run, signal.aborted && (receipt?.status ?? "not_sent") === "not_sent");
    const broken = conn.failure !== undefined;
    await conn.close();
    if (!receipt && cancelled()) return cancelled()!;
    let { reason, message } = attempt;
    if (receipt?.status === "unknown" && broken) {
      // The connection failed before the relay could look the message up: look on a fresh
      // one, as codex_queue_message does. The message is never sent again.
      reason ??= receipt.reason;
      message ??= receipt.message;
      receipt = await this.#confirm(receipt, signal, session.remainingMs());
    }
    reason ??= receipt?.reason ?? "protocol_error";
    // A refusal's own words (a job's: nothing is queued for it), else the reason's usual text.
    message ??= REASON_MESSAGES[reason] ?? receipt?.message ?? "";
    return receipt ? { receipt, reason, message } : notSent(reason, message, attempt.threadId);
  }

  /** Looks an `unknown` receipt's message up in the thread's queue on a fresh operation. */
  async #confirm(receipt: Receipt, signal: AbortSignal, budgetMs: number): Promise<Receipt> {
    if (budgetMs <= 0) return receipt;
    return await this.#deps.connection
      .operation((s) => confirmUnknown(s, receipt), { signal, budgetMs, label: "confirm" })
      .catch(() => receipt);
  }

  /**
   * The steps of a start once the login is known. The thread: the one
   * `where.threadId` names, claimed for the run at once (its cwd, from
   * `thread/read`, which reads a stored thread without loading it, is where
   * its configuration is read, since a plain resume gives the thread that
   * cwd's config layers: a trusted project's `.codex/config.toml` over the
   * user's), or a new one in `where.cwd` with the options (`thread/start`),
   * claimed once made. The settings are checked there before anything starts,
   * and the MCP servers' startup watched from right before the load. Then a
   * runtime follows the thread before anything is sent (so it sees the run's
   * own turn from its first event); a new thread is named, an existing one
   * loaded; the MCP servers the load started waited for; then the run's work
   * sent, unless an interrupt cancelled the run.
   */
  async #run(
    conn: HeldConnection,
    session: Session,
    claim: Claim,
    where: Where,
    text: string,
    options: RunOptions,
  ): Promise<Attempt> {
    let threadId: string | undefined;
    let cwd: string;
    let loaded = false;
    if ("threadId" in where) {
      const resolved = await resolveThread(session, where.threadId);
      if (resolved instanceof RelayError) {
        return { reason: resolved.reason, message: resolved.message };
      }
      threadId = resolved;
      if (!claim(threadId)) return { reason: "turn_running", threadId };
      ({ cwd, loaded } = await session.call("thread/read", { threadId }));
    } else {
      cwd = where.cwd;
      const missing = await missingDirectory(session, cwd);
      if (missing) return { reason: "cwd_not_found", message: missing };
    }
    const { config, servers } = await this.#settings.check(session, cwd, options, threadId);
    const watch = watchMcpStartup(conn, this.#deps.clock);
    const { registry } = this.#deps;
    try {
      const fresh = threadId === undefined;
      if (fresh) {
        ({ threadId } = await session.call("thread/start", { cwd, ...runParams(options), config }));
        this.#settings.remember(threadId, options);
      }
      const run = claim(threadId!);
      if (!run) return { reason: "turn_running", threadId };
      const runtime = registry.adopt(conn, run, undefined, cwd);
      conn.follow(run.threadId);
      if (fresh && options.name !== undefined) await nameThread(session, runtime, options.name);
      const load = fresh ? "loaded" : await loadThread(session, runtime, config, options);
      const refused = typeof load === "object" ? load : undefined;
      // Refused after the resume: a loaded thread kept its own settings.
      if (!fresh && refused?.reason !== "not_allowed") {
        this.#settings.remember(run.threadId, options);
      }
      if (refused) return { ...refused, threadId };
      // Held elsewhere: nothing was loaded here, so no server of it starts here. A thread
      // loaded already started its servers then: only a load here waits for them.
      const mcpServers = load === "held" ? [] : await afterLoadWait(
        watch,
        run.threadId,
        loaded ? [] : servers,
        session,
        (n) => runtime.addNote(n),
        this.#mcpKnown,
      );
      if (cancelledByInterrupt(run)) return { reason: "cancelled", message: CANCELLED_START };
      // The call cancelled during the wait (or the relay shutting down): nothing is sent.
      if (session.signal.aborted) return { reason: "cancelled", message: "The call was cancelled" };
      run.move({ kind: "writing" });
      const sent = await sendWork(registry, conn, session, runtime, text, load === "held");
      return "runtime" in sent ? { ...sent, mcpServers } : sent;
    } finally {
      watch.stop();
    }
  }
}

/** The job of a `codex_run`: a message, with images its own turn, with `outputSchema` a structured run. */
function jobOf(options: RunOptions): RunJob {
  const { outputSchema: schema, images } = options;
  const more = images?.length ? { images } : {};
  if (schema !== undefined) return { kind: "structured", schema, ...more };
  return more.images ? { kind: "images", images: more.images } : MESSAGE_JOB;
}

/** Names a new thread; a failure is a note of the run. */
async function nameThread(session: Session, runtime: TurnRuntime, name: string): Promise<void> {
  try {
    await session.call("thread/name/set", { threadId: runtime.run.threadId, name });
  } catch (error) {
    runtime.addNote(`The thread could not be named (${asRelayError(error).reason})`);
  }
}
