/**
 * Attaching to a turn that runs in the daemon (`codex_wait_reply` at the
 * turn-start level, e.g. after the relay that started the turn exited): a
 * runtime subscribes to the thread (`thread/resume`, which the daemon answers
 * by replaying the turn's pending requests, same ids) and follows the turn by
 * its id, so its approvals reach the caller. Only a thread the daemon has
 * loaded is resumed: resuming a `notLoaded` one would take the writer lock
 * from the user's other Codex processes.
 * @module
 */

import { asRelayError } from "../core/errors.ts";
import type { Clock } from "../core/clock.ts";
import type { Logger } from "../core/log.ts";
import {
  type Connection,
  type HeldConnection,
  heldSession,
  type Session,
} from "../connect/connection.ts";
import type { ThreadListPage } from "../codex/types.ts";
import { TURN_STATUS_WINDOW } from "../reply/turn_status.ts";
import { readReply } from "../ops/read_reply.ts";
import type { Run, TurnRegistry } from "./turn_registry.ts";
import type { TurnRuntime } from "./turn_runtime.ts";
import type { WaitEntry } from "./wait_engine.ts";
import { jobKind, type RunJob } from "./run_job.ts";
import type { RunUsage } from "../reply/schemas.ts";

/** What attaching needs. */
export interface AttachDeps {
  connection: Connection;
  registry: TurnRegistry;
  clock: Clock;
  log: Logger;
}

/** Budget of one attach: the view, the status check, the resume and one status read. */
export const ATTACH_BUDGET_MS = 12_000;
/** `thread/list` pages (of 100) searched for the thread's load status; not found: not attached. */
export const STATUS_PAGES = 5;

/** What a lost run of this relay hands the run attached to its turn: its job and the usage it counted. */
export interface Carried {
  job: RunJob;
  usage: RunUsage | undefined;
}

/**
 * A runtime following `turnId` (the turn of `clientMessageId`) on a shared
 * app-server (the daemon), or undefined when the relay should not or cannot
 * attach: a backend that cannot attach to running turns, shutting down, another message's runtime on the thread, the thread
 * not loaded in the daemon, or a failure (the caller then just reads).
 * `carried`: a lost run's job and usage (default: a message's, none).
 */
export async function attachTurn(
  deps: AttachDeps,
  target: { threadId: string; clientMessageId: string; turnId: string },
  signal: AbortSignal,
  carried?: Carried,
): Promise<TurnRuntime | undefined> {
  const { connection, registry, clock, log } = deps;
  const { threadId, clientMessageId, turnId } = target;
  if (!connection.capabilities.shared || registry.closing) return undefined;
  const mine = () => {
    const live = registry.run(threadId);
    return live?.clientMessageId === clientMessageId ? live.handle : undefined;
  };
  if (registry.run(threadId)?.handle) return mine();
  let conn: HeldConnection;
  try {
    conn = await connection.hold({ signal, budgetMs: ATTACH_BUDGET_MS });
  } catch (error) {
    log.info("attach: no connection", { reason: asRelayError(error).reason });
    return undefined;
  }
  const session = heldSession(conn, signal, ATTACH_BUDGET_MS, clock);
  let runtime: TurnRuntime | undefined;
  let run: Run<TurnRuntime> | undefined;
  try {
    // A thread not loaded there is never resumed; one with a run of this relay is not claimed twice.
    if (await loadedInDaemon(session, threadId)) {
      run = registry.begin(threadId, clientMessageId, { kind: "running" }, carried?.job);
    }
    if (!run) {
      await conn.close();
      return mine();
    }
    runtime = registry.adopt(conn, run, turnId);
    runtime.carryUsage(carried?.usage);
    conn.follow(threadId);
    await session.call("thread/resume", { threadId, excludeTurns: true });
    registry.follow(runtime, undefined, false);
    // A turn that ended before the subscription sends no turn/completed: read its status.
    const page = await session.call("thread/turns/list", {
      threadId,
      limit: TURN_STATUS_WINDOW,
      sortDirection: "desc",
      itemsView: "notLoaded",
    });
    const turn = page.data.find((t) => t.id === turnId);
    if (turn && turn.status !== "inProgress" && turn.completedAt !== null) {
      runtime.observed(turn.status, turn.error);
    }
    log.info("attached to a running turn");
    return runtime;
  } catch (error) {
    log.info("attach failed", { reason: asRelayError(error).reason });
    if (run) registry.drop(run);
    if (runtime) await runtime.detach();
    else await conn.close();
    return undefined;
  }
}

/** Whether the daemon has the thread loaded (`idle` or `active` in `thread/list`). */
async function loadedInDaemon(session: Session, threadId: string): Promise<boolean> {
  let cursor: string | null = null;
  for (let page = 0; page < STATUS_PAGES; page++) {
    const params = cursor ? { limit: 100, cursor } : { limit: 100 };
    const list: ThreadListPage = await session.call("thread/list", params);
    const thread = list.data.find((t) => t.id === threadId);
    if (thread) return thread.status !== "notLoaded";
    cursor = list.nextCursor;
    if (!cursor) return false;
  }
  return false;
}

/**
 * The wait entry of a message: the run this relay runs for it (`hints`: run
 * ids a retried call carries), its end when that run ended, or, on a backend
 * that attaches (`attach`: the daemon at the turn-start level), a runtime
 * attached to its turn still running there; otherwise the message is read.
 *
 * @example
 * ```ts ignore
 * const entry = await locateMessage(ref, deps, true, [], signal);
 * ```
 */
export async function locateMessage(
  ref: { threadId: string; clientMessageId: string; cursor?: string },
  deps: AttachDeps,
  attach: boolean,
  hints: readonly string[],
  signal: AbortSignal,
): Promise<WaitEntry<TurnRuntime>> {
  const { registry } = deps;
  const same = (r: TurnRuntime | undefined) =>
    r?.run.threadId === ref.threadId && r.run.clientMessageId === ref.clientMessageId
      ? r
      : undefined;
  const run = same(registry.run(ref.threadId)?.handle) ??
    hints.map((id) => same(registry.byId(id))).find((r) => r);
  if (run) return { ref, run };
  const finished = registry.finished(ref.threadId, ref.clientMessageId);
  if (finished) return { ref, end: { kind: "settled", run: finished } };
  if (!attach || !deps.connection.capabilities.shared) return { ref };
  const scope = { threadId: ref.threadId, clientMessageId: ref.clientMessageId };
  const lost = registry.lostRun(ref.threadId, ref.clientMessageId);
  if (lost && jobKind(lost.job).ownTurn === "next") {
    // A compaction has no message of its own: its turn is the one its lost run followed (none
    // seen yet: not guessed). Not attached, it is read (`readOwn`: as Codex stores that turn).
    const seen = lost.handle?.snapshot();
    if (!seen?.turnId) return { ref };
    const carried = { job: lost.job, usage: seen.usage };
    const attached = await attachTurn(deps, { ...scope, turnId: seen.turnId }, signal, carried);
    return attached ? { ref, run: attached } : { ref };
  }
  const read = await deps.connection
    .operation((s) => readReply(s, scope), { signal, label: "attach" })
    .catch(() => undefined);
  // Stryker disable next-line OptionalChaining: an observed read always names its turn
  if (read?.status !== "observed" || read.turn?.status !== "running") return { ref };
  const attached = await attachTurn(deps, { ...scope, turnId: read.turn.id }, signal);
  return attached ? { ref, run: attached } : { ref };
}
