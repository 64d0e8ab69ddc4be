/**
 * `codex_interrupt`'s decision ("cancel really cancels"): a message still
 * queued is withdrawn (deleted from the thread's queue, confirmed, and only
 * a message this relay process queued: `withdraw_message.ts`), a running
 * turn of this relay is interrupted. The relay's own run whose message
 * still waits behind another turn (phase `queued`) is withdrawn and ends
 * as interrupted; when Codex took the message meanwhile, its turn is
 * interrupted instead. Nothing of another process is touched.
 * @module
 */

import type { Clock } from "../core/clock.ts";
import { type Connection, heldSession, type Session } from "../connect/connection.ts";
import type { QueuedHere } from "../ops/queued_here.ts";
import { withdrawMessage } from "../ops/withdraw_message.ts";
import type { WithdrawResult } from "../reply/schemas.ts";
import type { FinishedRun } from "./run_book.ts";
import type { TurnRegistry } from "./turn_registry.ts";
import type { TurnRuntime } from "./turn_runtime.ts";

/** What cancelling needs. */
export interface CancelDeps {
  connection: Connection;
  registry: TurnRegistry;
  clock: Clock;
  queuedHere: QueuedHere;
  /** Whether items may be read (reply-read level): tells `already_taken` apart. */
  readItems: boolean;
}

/** What was done. */
export type Cancelled =
  /** The named message (or the run's, still queued) was withdrawn, or the withdraw's result. */
  | { kind: "withdraw"; result: WithdrawResult }
  /** The run's turn was interrupted (its run), or this relay runs none (undefined). */
  | { kind: "run"; run: FinishedRun | undefined };

/**
 * Cancels on the thread `threadId` (canonical) the message `clientMessageId`
 * names, or this relay's run there when none is named.
 */
export async function cancelOnThread(
  deps: CancelDeps,
  threadId: string,
  clientMessageId: string | undefined,
  signal: AbortSignal,
): Promise<Cancelled> {
  let run = deps.registry.run(threadId);
  if (run?.state.kind === "starting" && run.state.writing) {
    // Its message is on its way to the queue: act on it once the queue answered.
    await run.started;
    run = deps.registry.run(threadId);
  }
  const runtime = run?.handle;
  const named = clientMessageId !== undefined && run?.clientMessageId !== clientMessageId;
  if (named) {
    return {
      kind: "withdraw",
      result: await withdraw(deps, runtime, threadId, clientMessageId!, signal),
    };
  }
  if (runtime && run?.state.kind === "queued" && runtime.alive) {
    const result = await withdraw(deps, runtime, threadId, runtime.run.clientMessageId, signal);
    if (result.status === "withdrawn") {
      runtime.withdrawn();
      await runtime.run.settled;
      return { kind: "withdraw", result };
    }
    // Codex took it meanwhile (its turn starts), or the delete is unconfirmed: interrupt.
  }
  // A run still at its first steps (nothing queued) is cancelled, a queued or running one interrupted.
  return { kind: "run", run: await deps.registry.interrupt(threadId) };
}

/** Withdraws on the connection that holds the thread (the runtime's), else on a new operation. */
function withdraw(
  deps: CancelDeps,
  runtime: TurnRuntime | undefined,
  threadId: string,
  clientMessageId: string,
  signal: AbortSignal,
): Promise<WithdrawResult> {
  const options = { readItems: deps.readItems, queuedHere: deps.queuedHere };
  const body = (s: Session) => withdrawMessage(s, threadId, clientMessageId, options);
  if (runtime?.alive) {
    const budget = deps.connection.limits.operationMs;
    return body(heldSession(runtime.connection, signal, budget, deps.clock));
  }
  return deps.connection.operation(body, { signal, label: "withdraw" });
}
