/**
 * The steps of a start that depend on the run's kind (`run_job.ts`), once
 * `turn_start.ts` has found or made the thread, claimed the run there and
 * given it a runtime that follows the thread: an existing thread loaded
 * ({@linkcode loadThread}), then the run's work sent ({@linkcode sendWork}).
 *
 * A message is queued and the thread's queue started: a busy thread runs it
 * after what runs there. A structured run or a review starts its own turn,
 * only on an idle thread: `turn/start` on a busy thread steers its turn (and
 * the queue drops `outputSchema`), `review/start` interrupts it
 * (docs/codex-protocol.md).
 * @module
 */

import { asRelayError, type ReasonCode } from "../core/errors.ts";
import type { HeldConnection, Session } from "../connect/connection.ts";
import { queueMessage } from "../ops/queue_message.ts";
import type { Receipt } from "../reply/schemas.ts";
import { jobKind } from "./run_job.ts";
import { type RunOptions, runParams, unapplied } from "./run_options.ts";
import type { TurnRegistry } from "./turn_registry.ts";
import type { TurnRuntime } from "./turn_runtime.ts";

/** An existing thread's load: done, held by another process (a message only), or refused. */
export type Loaded = "loaded" | "held" | { reason: ReasonCode; message: string };

/** What sending a run's work came to: its runtime following the turn, or why not. */
export type Sent = { runtime: TurnRuntime; receipt: Receipt } | {
  receipt: Receipt;
  reason?: ReasonCode;
};

const BUSY = {
  reason: "turn_running",
  message:
    "A turn runs on this thread (or messages wait in its queue). Codex would steer that turn (turn/start) or interrupt it (review/start), so nothing was sent: wait for it to end",
} as const;
const HELD =
  "Another Codex process has this thread open; this job cannot be queued for it (Codex drops outputSchema from queued messages; reviews and compactions take no queue), so nothing was sent";

/**
 * Loads the run's thread, or subscribes to it where this connection's
 * app-server has it loaded (`thread/resume`: both backends keep a thread they
 * loaded loaded, and one the process holds resumes without a writer lock).
 * The runtime follows the thread already, so it sees its message's
 * `item/started` even when Codex starts the message at once. A loaded thread
 * keeps its settings (Codex ignores the resume's overrides): running looser
 * than the options ask, the run is refused (`not_allowed`), since its turn
 * would not run as asked.
 *
 * A message into a thread another process holds (`held_elsewhere`) is still
 * queued: that process runs it (`held`). A structured run or a review is
 * refused by a held thread, and by a busy one: a turn running, or messages
 * in its queue (listed before the resume, which starts them).
 */
export async function loadThread(
  session: Session,
  runtime: TurnRuntime,
  config: Record<string, unknown>,
  options: RunOptions,
): Promise<Loaded> {
  const { threadId } = runtime.run;
  const isJob = jobKind(runtime.run.job).sends !== "queue";
  if (isJob && (await session.call("thread/queue/list", { threadId })).data.length > 0) {
    return BUSY;
  }
  let resumed;
  try {
    resumed = await session.call("thread/resume", {
      threadId,
      excludeTurns: true,
      ...runParams(options),
      config,
    });
  } catch (error) {
    const e = asRelayError(error);
    if (e.reason !== "held_elsewhere") return { reason: e.reason, message: e.message };
    return isJob ? { reason: e.reason, message: HELD } : "held";
  }
  const problems = unapplied(options, resumed).join(" and ");
  if (problems) {
    const message = isJob
      ? `Codex already has this thread loaded and keeps its settings: it runs with ${problems}, so the job would not run as asked`
      : `Codex already has this thread loaded (the daemon, or an earlier run of this relay while other turns run), and keeps a loaded thread's settings: it runs with ${problems}, so the turn would not run as asked`;
    return { reason: "not_allowed", message };
  }
  return isJob && (resumed.active || runtime.busy) ? BUSY : "loaded";
}

/**
 * Sends the run's work. A message is queued (`thread/queue/add`) and the
 * thread's queue started, unless another process holds the thread (`held`):
 * the message stays queued for that process to run (`held_elsewhere`). A
 * structured run (`turn/start` with its schema), a review (`review/start`) or
 * a compaction (`thread/compact/start`: its turn is the next one the idle
 * thread starts) starts its own turn, which the runtime then follows.
 */
export async function sendWork(
  registry: TurnRegistry,
  conn: HeldConnection,
  session: Session,
  runtime: TurnRuntime,
  text: string,
  held: boolean,
): Promise<Sent> {
  const { threadId, clientMessageId, job } = runtime.run;
  const { sends, ownTurn } = jobKind(job);
  if (sends === "queue") {
    const receipt = await queueMessage(session, threadId, text, clientMessageId);
    if (receipt.status !== "queued") return { receipt };
    if (held) return { receipt, reason: "held_elsewhere" };
    registry.follow(runtime, receipt.queuedSubmissionId);
    // At its head: messages queued earlier run first, as Codex would run them. "queue is
    // empty" / "active or pending turn": Codex started it (or an earlier message) itself.
    await conn.call("thread/queue/start", { threadId }).catch(() => {});
    return { receipt, runtime };
  }
  let turnId: string | null;
  try {
    turnId = await sends(session, job, { threadId, clientMessageId, text });
  } catch (error) {
    const { reason, message, written, rpcCode } = asRelayError(error);
    // An answer that was lost after the request was written: the job may have started.
    const status = written && rpcCode === undefined ? "unknown" : "not_sent";
    return { receipt: { status, reason, message, clientMessageId, threadId } };
  }
  if (ownTurn === "claimed" && turnId !== null) runtime.claim(turnId);
  registry.follow(runtime);
  const receipt: Receipt = {
    status: "queued",
    clientMessageId,
    threadId,
    confirmedBy: "acknowledgement",
  };
  return { receipt, runtime };
}
