/**
 * Whether a run works in a worktree, as Codex tells it (not this process's
 * memory: a turn outlives the relay that started it on the daemon, and
 * another relay's turns are not in this one's registry). The threads Codex
 * lists for the worktree's folders (`thread/list {cwd}`; Codex matches the
 * folder canonically and gives each cwd as stored, so a thread started
 * through a symlink counts too, whatever its spelling): one `active` (a turn
 * running in the Codex process asked) is in use; one the asked process has
 * not loaded is in use when its last turn is `inProgress`, unknown when its
 * last turn reads `interrupted` without an end (running in another process,
 * or left so by one that died: Codex cannot tell them apart), and free when
 * that turn ended. Anything Codex cannot answer is unknown.
 * @module
 */

import { asRelayError } from "../core/errors.ts";
import { LISTED_SOURCE_KINDS, type Thread } from "../codex/types.ts";
import type { Session } from "../connect/connection.ts";
import type { InUse } from "./worktree_git.ts";

/** The most threads read in one worktree's folder; more is unknown. */
export const ACTIVE_PROBES = 20;

/** Whether `path` is `folder` or inside it. */
export function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

/**
 * Whether a turn runs on a thread whose cwd is in `path`: the folders asked
 * are `path` and `cwd` (the folder of it the run's thread was started in).
 *
 * @example
 * ```ts ignore
 * await codexInUse(session, "/w/fix-1", "/w/fix-1/sub"); // false, true or {unknown: "…"}
 * ```
 */
export async function codexInUse(s: Session, path: string, cwd?: string): Promise<InUse> {
  const threads: Thread[] = [];
  try {
    for (const folder of new Set([path, cwd ?? path])) {
      const page = await s.call("thread/list", {
        limit: ACTIVE_PROBES,
        sourceKinds: LISTED_SOURCE_KINDS,
        cwd: folder,
      });
      if (page.nextCursor !== null) {
        return { unknown: `more than ${ACTIVE_PROBES} Codex threads work in ${folder}` };
      }
      threads.push(...page.data);
    }
    let unknown: InUse = false;
    for (const thread of threads) {
      const one = await threadInUse(s, thread);
      if (one === true) return true;
      if (one !== false) unknown = one;
    }
    return unknown;
  } catch (error) {
    return { unknown: `Codex could not be asked: ${asRelayError(error).message}` };
  }
}

async function threadInUse(s: Session, thread: Thread): Promise<InUse> {
  if (thread.status === "active") return true;
  if (thread.status === "idle") return false;
  const [turn] = (await s.call("thread/turns/list", {
    threadId: thread.id,
    limit: 1,
    sortDirection: "desc",
    itemsView: "notLoaded",
  })).data;
  if (turn === undefined || turn.completedAt !== null) return false;
  if (turn.status === "inProgress") return true;
  return {
    unknown:
      `the last turn of thread ${thread.id} has not ended, as Codex stores it: it runs in another process or one that stopped left it so`,
  };
}
