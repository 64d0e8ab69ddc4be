/**
 * `codex_steer`: adds input to the turn this relay runs on a thread (the
 * ownership rule of `codex_interrupt`: only this relay's run), with the run's
 * own turn id as `expectedTurnId`. Nothing of this relay runs there:
 * `not_running`, never a `turn/start` (which would start a new turn). A
 * review cannot be steered (`not_steerable`, Codex says so too).
 * @module
 */

import type { Clock } from "../core/clock.ts";
import { heldSession } from "../connect/connection.ts";
import { mintRunId } from "../reply/run_id.ts";
import { steerTurn } from "../ops/steer.ts";
import type { SteerResult } from "../reply/schemas.ts";
import { jobKind } from "./run_job.ts";
import type { TurnRegistry } from "./turn_registry.ts";
import type { ImageInput } from "../codex/methods.ts";

/** The budget of one steer (one RPC on the run's own connection). */
const STEER_BUDGET_MS = 12_000;

/**
 * Steers the run of this relay on `threadId` (the one whose message is
 * `clientMessageId`, when given) with `text`.
 *
 * @example
 * ```ts ignore
 * const result = await steerRun(registry, clock, { threadId, text: "also cover y" }, signal);
 * ```
 */
export async function steerRun(
  registry: TurnRegistry,
  clock: Clock,
  steer: { threadId: string; clientMessageId?: string; text: string; images?: ImageInput[] },
  signal: AbortSignal,
): Promise<SteerResult> {
  const { threadId } = steer;
  const runtime = registry.run(threadId)?.handle;
  const mine = runtime && !runtime.isOver &&
    (steer.clientMessageId === undefined || steer.clientMessageId === runtime.run.clientMessageId);
  if (!runtime || !mine) {
    return {
      status: "not_running",
      threadId,
      message:
        "codex-relay runs no turn on this thread (with that clientMessageId); nothing was sent",
    };
  }
  const { notSteerable } = jobKind(runtime.run.job);
  if (notSteerable !== undefined) {
    return { status: "not_steerable", threadId, kind: runtime.run.job.kind, message: notSteerable };
  }
  const turnId = runtime.snapshot().turnId;
  if (turnId === null) {
    return {
      status: "not_running",
      threadId,
      message: "The run's message waits in the queue: its turn has not started; nothing was sent",
    };
  }
  const clientMessageId = mintRunId();
  const session = heldSession(runtime.connection, signal, STEER_BUDGET_MS, clock);
  const outcome = await steerTurn(session, {
    threadId,
    expectedTurnId: turnId,
    clientMessageId,
    text: steer.text,
    images: steer.images,
  });
  if (outcome.status === "steered") {
    runtime.addNote(`Steered with the message ${clientMessageId}`);
    return { status: "steered", threadId, clientMessageId, turnId: outcome.turnId };
  }
  if (outcome.status === "unknown" || outcome.status === "unavailable") {
    return {
      status: outcome.status,
      threadId,
      reason: outcome.reason,
      message: outcome.message,
      ...(outcome.status === "unknown" ? { clientMessageId } : {}),
    };
  }
  return { status: outcome.status, threadId, turnId, message: outcome.message };
}
