/**
 * Starting the runs that are not a queued message: a structured run
 * (`turn/start` with `outputSchema`) and a review (`review/start`). Both only
 * on an idle thread: `turn/start` on a busy thread steers its turn (and the
 * queue path drops `outputSchema`), `review/start` interrupts it
 * (docs/codex-protocol.md). The runtime follows the thread before anything is
 * sent, so it sees the run's own turn from its first event.
 * @module
 */

import { asRelayError, type ReasonCode, RelayError } from "../core/errors.ts";
import type { Clock } from "../core/clock.ts";
import { resolveThread } from "../ops/resolve_thread.ts";
import type { StartingServer } from "../ops/mcp_startup.ts";
import type { McpServerMissing } from "../reply/schemas.ts";
import { afterLoadWait, watchMcpStartup } from "../ops/mcp_wait.ts";
import {
  type Attempt,
  type Claim,
  missingDirectory,
  nameThread,
  threadRead,
} from "./start_checks.ts";
import type { HeldConnection, Session } from "../connect/connection.ts";
import type { RunParams } from "../codex/methods.ts";
import type { Receipt } from "../reply/schemas.ts";
import { type Applied, type RunOptions, runParams, unapplied } from "./run_options.ts";
import {
  CANCELLED_START,
  cancelledByInterrupt,
  type Run,
  type TurnRegistry,
} from "./turn_registry.ts";
import type { TurnRuntime } from "./turn_runtime.ts";

/** What a job's start reports to `TurnStarts` (its `Attempt`). */
export interface JobAttempt {
  receipt?: Receipt;
  runtime?: TurnRuntime;
  reason?: ReasonCode;
  message?: string;
  failed?: boolean;
  /** `message` says why (not the reason's usual text, which speaks of a queued message). */
  ownMessage?: boolean;
}

/** How to start a run's job (the run itself, begun with its job, holds the thread and id). */
export interface JobRun {
  /** The message text (a structured run). */
  text?: string;
  /** A new thread this start made (`thread/start`): loaded and idle, nothing to check. */
  fresh: boolean;
  config: Record<string, unknown>;
  resumeParams?: RunParams;
  options?: RunOptions;
  /** Runs after the thread is loaded, before the job starts (MCP servers). */
  afterLoad?: (runtime: TurnRuntime) => Promise<void>;
}

const BUSY =
  "A turn runs on this thread (or messages wait in its queue). Codex would steer that turn (turn/start) or interrupt it (review/start), so nothing was sent: wait for it to end";
const HELD =
  "Another Codex process has this thread open; this job cannot be queued for it (Codex drops outputSchema from queued messages and reviews take no queue), so nothing was sent";

/** Starts `run`'s job on its thread in a new runtime on `conn`. */
export async function startJob(
  registry: TurnRegistry,
  conn: HeldConnection,
  session: Session,
  run: Run<TurnRuntime>,
  spec: JobRun,
): Promise<JobAttempt> {
  const runtime = registry.adopt(conn, run);
  conn.follow(run.threadId);
  if (!spec.fresh) {
    const refused = await resumeIdle(session, runtime, run.threadId, spec);
    if (refused) return { ...refused, runtime, failed: true, ownMessage: true };
  }
  await spec.afterLoad?.(runtime);
  if (cancelledByInterrupt(run)) {
    return { reason: "cancelled", message: CANCELLED_START, runtime, failed: true };
  }
  registry.writing(run);
  let turnId: string;
  try {
    turnId = await send(session, run, spec.text ?? "");
  } catch (error) {
    const e = asRelayError(error);
    // An answer that was lost after the request was written: the job may have started.
    const status = e.written && e.rpcCode === undefined ? "unknown" : "not_sent";
    const receipt: Receipt = {
      status,
      reason: e.reason,
      message: e.message,
      clientMessageId: run.clientMessageId,
      threadId: run.threadId,
    };
    return { receipt, runtime, failed: true };
  }
  if (run.job.kind === "review") runtime.claim(turnId);
  registry.watch(runtime);
  const receipt: Receipt = {
    status: "queued",
    clientMessageId: run.clientMessageId,
    threadId: run.threadId,
    confirmedBy: "acknowledgement",
  };
  return { receipt, runtime };
}

/** Sends the request that starts `run`'s job; the answer is its turn's id. */
async function send(session: Session, run: Run<TurnRuntime>, text: string): Promise<string> {
  const { threadId, job } = run;
  if (job.kind === "review") {
    return await session.call("review/start", { threadId, target: job.target });
  }
  if (job.kind !== "structured") throw new Error("a queued message is not a job");
  return await session.call("turn/start", {
    threadId,
    clientUserMessageId: run.clientMessageId,
    input: [{ type: "text", text, text_elements: [] }],
    outputSchema: job.schema,
  });
}

/**
 * Loads (or subscribes to) the thread and checks that it is idle: nothing
 * runs (as the resume reports it and as the runtime saw) and nothing waits in
 * its queue (a resume starts queued messages). Why not, or undefined.
 */
async function resumeIdle(
  session: Session,
  runtime: TurnRuntime,
  threadId: string,
  run: JobRun,
): Promise<{ reason: ReasonCode; message: string } | undefined> {
  // Before the resume: resuming a thread starts its queued messages.
  const queued = await session.call("thread/queue/list", { threadId });
  if (queued.data.length > 0) return { reason: "turn_running", message: BUSY };
  let resumed;
  try {
    resumed = await session.call("thread/resume", {
      threadId,
      excludeTurns: true,
      ...run.resumeParams,
      config: run.config,
    });
  } catch (error) {
    const e = asRelayError(error);
    return { reason: e.reason, message: e.reason === "held_elsewhere" ? HELD : e.message };
  }
  const problems = unapplied(run.options ?? {}, resumed);
  if (problems.length > 0) {
    return {
      reason: "not_allowed",
      message: `Codex already has this thread loaded and keeps its settings: it runs with ${
        problems.join(" and ")
      }, so the job would not run as asked`,
    };
  }
  if (resumed.active || runtime.busy) return { reason: "turn_running", message: BUSY };
  return undefined;
}

/** What a job's start needs of `TurnStarts`. */
export interface JobContext {
  registry: TurnRegistry;
  clock: Clock;
  /** The config overrides at `cwd` and the MCP servers a load with them starts (checks the options). */
  config(
    session: Session,
    cwd: string,
    applied?: Applied,
  ): Promise<{ config: Record<string, unknown>; servers: readonly StartingServer[] }>;
  /** What the thread was left with by this relay's earlier runs. */
  applied(threadId: string): Applied | undefined;
  /** Remembers what the options leave with the thread. */
  remember(threadId: string): void;
}

/** A thread a job runs on: its id, the config overrides, the MCP servers its load starts. */
interface Found {
  threadId: string;
  config: Record<string, unknown>;
  servers: readonly StartingServer[];
}

/**
 * The body of a job's start: finds the thread (or starts one in `cwd`),
 * claims the run on it, and starts the job once the MCP servers its load
 * started are ready (as a message's run waits for them).
 */
export function jobBody(
  ctx: JobContext,
  where: { threadId: string } | { cwd: string },
  text: string,
  options: RunOptions,
): (conn: HeldConnection, session: Session, claim: Claim) => Promise<Attempt> {
  return async (conn, session, claim) => {
    const fresh = !("threadId" in where);
    const watch = watchMcpStartup(conn, ctx.clock);
    try {
      const found = fresh
        ? await newThread(ctx, session, where.cwd, options)
        : await knownThread(ctx, session, where.threadId);
      if ("reason" in found) return found;
      const { threadId, config, servers } = found;
      const run = claim(threadId);
      if (!run) return { reason: "turn_running", threadId };
      let mcpServers: McpServerMissing[] = [];
      const attempt = await startJob(ctx.registry, conn, session, run, {
        text,
        fresh,
        config,
        resumeParams: runParams(options),
        options,
        afterLoad: async (runtime) => {
          const note = runtime.addNote.bind(runtime);
          mcpServers = await afterLoadWait(watch, threadId, servers, session, note);
        },
      });
      if (!fresh && attempt.reason !== "not_allowed") ctx.remember(threadId);
      if (fresh && attempt.runtime && options.name !== undefined) {
        await nameThread(session, attempt.runtime, options.name);
      }
      return { ...attempt, threadId, mcpServers };
    } finally {
      watch.stop();
    }
  };
}

/** A new thread in `cwd` with the options (`thread/start`), or why there is none. */
async function newThread(
  ctx: JobContext,
  session: Session,
  cwd: string,
  options: RunOptions,
): Promise<Found | Attempt & { reason: ReasonCode }> {
  const missing = await missingDirectory(session, cwd);
  if (missing) return { reason: "cwd_not_found", message: missing };
  const { config, servers } = await ctx.config(session, cwd);
  const { threadId } = await session.call("thread/start", { cwd, ...runParams(options), config });
  ctx.remember(threadId);
  return { threadId, config, servers };
}

/** The thread `ref` names, with the config a resume applies there and the servers its load starts. */
async function knownThread(
  ctx: JobContext,
  session: Session,
  ref: string,
): Promise<Found | Attempt & { reason: ReasonCode }> {
  const threadId = await resolveThread(session, ref);
  if (threadId instanceof RelayError) return { reason: threadId.reason, message: threadId.message };
  const read = await threadRead(session, threadId);
  const { config, servers } = await ctx.config(session, read.cwd, ctx.applied(threadId));
  // A thread loaded already started its servers then: only a load here waits for them.
  return { threadId, config, servers: read.loaded ? [] : servers };
}
