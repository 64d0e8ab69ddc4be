/**
 * `codex_fork`: a new thread with a thread's history (`thread/fork`,
 * transcripts 24: `{thread}` with `forkedFromId`, 100-600 ms), optionally
 * named (`thread/name/set`). The fork takes the stored history, never the turn
 * state: a thread where this relay runs a turn is refused (`turn_running`),
 * as `codex_run` refuses it.
 * @module
 */

import { type Connection, heldSession, type Session } from "../connect/connection.ts";
import type { Clock } from "../core/clock.ts";
import { asRelayError, RelayError } from "../core/errors.ts";
import type { ForkResult } from "../reply/schemas.ts";
import { resolveThread } from "./resolve_thread.ts";

/** What the fork is asked. */
export interface ForkRequest {
  /** The thread to fork: a UUID or a unique exact name. */
  threadRef: string;
  /** A name for the new thread. */
  name?: string;
  /** Whether this relay runs a turn on the thread (then nothing is forked). */
  runsHere: (threadId: string) => boolean;
}

/**
 * Forks the thread; every refusal is a `not_forked` result with its reason.
 *
 * @example
 * ```ts ignore
 * const out = await forkThread(session, { threadRef: "my thread", runsHere: () => false });
 * out.newThreadId; // the fork's id, when forked
 * ```
 */
export async function forkThread(s: Session, req: ForkRequest): Promise<ForkResult> {
  const resolved = await resolveThread(s, req.threadRef);
  if (resolved instanceof RelayError) {
    return notForked(req.threadRef, resolved);
  }
  const threadId = resolved;
  if (req.runsHere(threadId)) {
    return {
      status: "not_forked",
      reason: "turn_running",
      message:
        "codex-relay runs a turn on this thread: fork it once the turn ended (codex_wait_reply)",
      threadId,
    };
  }
  let forked;
  try {
    forked = await s.call("thread/fork", { threadId, excludeTurns: true });
  } catch (error) {
    const e = asRelayError(error);
    // Written, never answered: Codex may have made the fork.
    const maybe = e.written && e.rpcCode === undefined
      ? "; the fork may have been made: look for it with codex_list_threads"
      : "";
    return { ...notForked(threadId, e), message: `${e.message}${maybe}` };
  }
  const out: ForkResult = {
    status: "forked",
    threadId,
    newThreadId: forked.threadId,
    cwd: forked.cwd,
  };
  if (req.name === undefined) return out;
  try {
    await s.call("thread/name/set", { threadId: forked.threadId, name: req.name });
    return { ...out, name: req.name };
  } catch (error) {
    return { ...out, notes: [`The new thread could not be named (${asRelayError(error).reason})`] };
  }
}

/** The budget of a fork: its lookup, the fork (100-600 ms in the captures) and the name. */
export const FORK_BUDGET_MS = 20_000;

/**
 * Forks on a held connection, as a run loads a thread: the process that forks
 * holds the new thread's writer lock until it exits, so the fork is made
 * where this relay's runs load threads (spawn: a turn host, reaped with its
 * last holder; daemon: the daemon), never in a short-lived helper that would
 * keep the new thread from the next `codex_run`.
 *
 * @example
 * ```ts ignore
 * const out = await forkOn(connection, { threadRef: id, runsHere: () => false }, signal, clock);
 * ```
 */
export async function forkOn(
  connection: Connection,
  req: ForkRequest,
  signal: AbortSignal,
  clock: Clock,
): Promise<ForkResult> {
  const begun = clock.now();
  let conn;
  try {
    conn = await connection.hold({ signal, budgetMs: FORK_BUDGET_MS });
  } catch (error) {
    return notForked(req.threadRef, asRelayError(error));
  }
  try {
    const budget = FORK_BUDGET_MS - (clock.now() - begun);
    return await forkThread(heldSession(conn, signal, budget, clock), req);
  } catch (error) {
    return notForked(req.threadRef, asRelayError(error));
  } finally {
    await conn.close();
  }
}

function notForked(threadId: string, e: RelayError): ForkResult {
  return { status: "not_forked", reason: e.reason, message: e.message, threadId };
}
