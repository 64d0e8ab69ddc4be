/**
 * Starting the runs that are not a queued message: a structured run
 * (`turn/start` with `outputSchema`) and a review (`review/start`). Both only
 * on an idle thread: `turn/start` on a busy thread steers its turn (and the
 * queue path drops `outputSchema`), `review/start` interrupts it
 * (docs/codex-protocol.md). The runtime follows the thread before anything is
 * sent, so it sees the run's own turn from its first event.
 * @module
 */

import { asRelayError, type ReasonCode } from "../core/errors.ts";
import type { HeldConnection, Session } from "../connect/connection.ts";
import type { RunParams } from "../codex/methods.ts";
import type { Receipt } from "../ops/queue_message.ts";
import type { RunJob } from "./run_job.ts";
import { type RunOptions, unapplied } from "./run_options.ts";
import type { TurnRegistry } from "./turn_registry.ts";
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

/** A job to start on a thread. */
export interface JobRun {
  threadId: string;
  clientMessageId: string;
  job: Exclude<RunJob, { kind: "message" }>;
  /** The message text (a structured run). */
  text?: string;
  /** A new thread this start made (`thread/start`): loaded and idle, nothing to check. */
  fresh: boolean;
  config: Record<string, unknown>;
  resumeParams?: RunParams;
  options?: RunOptions;
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
  run: JobRun,
): Promise<JobAttempt> {
  const runtime = registry.adopt(conn, run.threadId, run.clientMessageId, undefined, run.job);
  conn.follow(run.threadId);
  if (!run.fresh) {
    const refused = await resumeIdle(session, runtime, run);
    if (refused) return { ...refused, runtime, failed: true, ownMessage: true };
  }
  let turnId: string;
  try {
    turnId = run.job.kind === "review"
      ? await session.call("review/start", { threadId: run.threadId, target: run.job.target })
      : await session.call("turn/start", {
        threadId: run.threadId,
        clientUserMessageId: run.clientMessageId,
        input: [{ type: "text", text: run.text ?? "", text_elements: [] }],
        outputSchema: run.job.schema,
      });
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

/**
 * Loads (or subscribes to) the thread and checks that it is idle: nothing
 * runs (as the resume reports it and as the runtime saw) and nothing waits in
 * its queue (a resume starts queued messages). Why not, or undefined.
 */
async function resumeIdle(
  session: Session,
  runtime: TurnRuntime,
  run: JobRun,
): Promise<{ reason: ReasonCode; message: string } | undefined> {
  // Before the resume: resuming a thread starts its queued messages.
  const queued = await session.call("thread/queue/list", { threadId: run.threadId });
  if (queued.data.length > 0) return { reason: "turn_running", message: BUSY };
  let resumed;
  try {
    resumed = await session.call("thread/resume", {
      threadId: run.threadId,
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
