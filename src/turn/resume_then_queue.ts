/**
 * `codex_run` on an existing thread, in either backend (both keep a thread
 * they loaded loaded: the daemon, and the spawn backend's turn host): subscribe
 * first (`thread/resume`: a thread the process holds resumes without a writer
 * lock; a stored one is loaded, as codex_run may), then queue. In that order
 * the runtime sees its own message's `item/started` even when Codex starts it
 * at once (a loaded, idle thread). A thread another process holds
 * (`held_elsewhere`) still gets the message queued: that process runs it. A
 * thread already loaded keeps its settings (Codex ignores the resume's
 * overrides): when it runs looser than codex_run's options ask, nothing is
 * queued (`not_allowed`), since the turn would not run as asked. A run an
 * interrupt ended during the resume queues nothing.
 * @module
 */

import { asRelayError } from "../core/errors.ts";
import type { HeldConnection, Session } from "../connect/connection.ts";
import { queueMessage } from "../ops/queue_message.ts";
import { type RunOptions, unapplied } from "./run_options.ts";
import type { RunParams } from "../codex/methods.ts";
import type { ReasonCode } from "../core/errors.ts";
import type { Receipt } from "../reply/schemas.ts";
import {
  CANCELLED_START,
  cancelledByInterrupt,
  type Run,
  type TurnRegistry,
} from "./turn_registry.ts";
import type { TurnRuntime } from "./turn_runtime.ts";

/** What the start reports to `TurnStarts` (its `Attempt`). */
export interface StartAttempt {
  receipt?: Receipt;
  runtime?: TurnRuntime;
  reason?: ReasonCode;
  message?: string;
  failed?: boolean;
}

/** What to run where. */
export interface ResumeRun {
  text: string;
  /** The recursion guard's config overrides (they apply when the resume loads the thread). */
  config: Record<string, unknown>;
  /** codex_run's options for the resume (model, sandbox, approval policy). */
  resumeParams?: RunParams;
  /** The options, to check that the resume applied them. */
  options?: RunOptions;
  /** Runs after a resume that applied the options, before the message is queued (MCP servers). */
  afterLoad?: (runtime: TurnRuntime) => Promise<void>;
}

/** Subscribes a runtime of `run` to its thread, queues the message and starts it. */
export async function resumeThenQueue(
  registry: TurnRegistry,
  conn: HeldConnection,
  session: Session,
  run: Run<TurnRuntime>,
  spec: ResumeRun,
): Promise<StartAttempt> {
  const { threadId, clientMessageId } = run;
  const { text, config, resumeParams } = spec;
  const runtime = registry.adopt(conn, run);
  conn.follow(threadId);
  try {
    const resumed = await session.call("thread/resume", {
      threadId,
      excludeTurns: true,
      ...resumeParams,
      config,
    });
    const problems = unapplied(spec.options ?? {}, resumed);
    if (problems.length > 0) {
      return {
        reason: "not_allowed",
        message:
          `Codex already has this thread loaded (the daemon, or an earlier run of this relay while other turns run), and keeps a loaded thread's settings: it runs with ${
            problems.join(" and ")
          }, so the turn would not run as asked`,
        runtime,
        failed: true,
      };
    }
  } catch (error) {
    const e = asRelayError(error);
    if (e.reason !== "held_elsewhere") return { reason: e.reason, message: e.message, runtime };
    if (cancelledByInterrupt(run)) return cancelled(runtime);
    registry.writing(run);
    const receipt = await queueMessage(session, threadId, text, clientMessageId);
    return { receipt, reason: receipt.status === "queued" ? e.reason : undefined, runtime };
  }
  await spec.afterLoad?.(runtime);
  if (cancelledByInterrupt(run)) return cancelled(runtime);
  registry.writing(run);
  const receipt = await queueMessage(session, threadId, text, clientMessageId);
  if (receipt.status !== "queued") return { receipt, runtime, failed: true };
  await registry.launch(conn, runtime, receipt);
  return { receipt, runtime };
}

function cancelled(runtime: TurnRuntime): StartAttempt {
  return { reason: "cancelled", message: CANCELLED_START, runtime, failed: true };
}
