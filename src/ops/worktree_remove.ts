/**
 * Listing and removing the worktrees this relay made (`worktree.ts` makes
 * them): only a recorded one is ever touched, never while a run works in it
 * or when that cannot be told (unless `force`), never with work in it
 * (changes, untracked or ignored files) unless `force`; exactly its own
 * worktree goes, by path (git's other worktrees are never pruned), and its
 * branch only where the relay left it.
 * @module
 */

import { asRelayError } from "../core/errors.ts";
import { goneWorktrees, listedWorktrees, type WorktreeRecord } from "./worktree_record.ts";
import {
  type ActiveIn,
  dropBranch,
  dropRecord,
  holdsWork,
  records,
  refuse,
  run,
  type WorktreeDeps,
  type WorktreeRefusal,
} from "./worktree_git.ts";

/** One worktree as `codex_worktree {action: "list"}` reports it. */
export interface ListedWorktree extends Omit<WorktreeRecord, "cwd"> {
  /** A run works in it; null when the relay cannot tell (`activeUnknown` says why). */
  active: boolean | null;
  /** Why the relay cannot tell whether a run works in it. */
  activeUnknown?: string;
  /** It holds work (changes, untracked or ignored files); null when git could not tell. */
  uncommittedChanges: boolean | null;
}

/** How git lists a repository's worktrees: the folders it has, those whose folder is gone. */
async function listing(deps: WorktreeDeps, repository: string) {
  const out = await deps.git(["worktree", "list", "--porcelain"], repository);
  return out.code === 0
    ? { listed: listedWorktrees(out.stdout), gone: goneWorktrees(out.stdout) }
    : undefined;
}

/**
 * Whether the recorded worktree holds work a removal would lose: none when
 * its folder is gone or git lists no worktree there (a half-made one: a
 * removal touches no folder then).
 */
async function workIn(deps: WorktreeDeps, r: WorktreeRecord): Promise<boolean | null> {
  const git = await listing(deps, r.repository);
  if (git && (git.gone.has(r.path) || !git.listed.has(r.path))) return false;
  return await holdsWork(deps.git, r.path);
}

/**
 * The worktrees this relay made, by name, with whether a run works in each
 * (`activeIn(path)`) and whether it holds work.
 */
export async function listWorktrees(
  deps: WorktreeDeps,
  activeIn: ActiveIn,
): Promise<{ ok: true; worktrees: ListedWorktree[] } | WorktreeRefusal> {
  try {
    // Stryker disable next-line EqualityOperator: a record holds each name once, so no two compare equal
    const found = (await records(deps.git, deps.root)).sort((a, b) => a.name < b.name ? -1 : 1);
    const worktrees: ListedWorktree[] = [];
    for (const { cwd, ...r } of found) {
      const inUse = await activeIn(r.path, cwd);
      worktrees.push({
        ...r,
        active: typeof inUse === "boolean" ? inUse : null,
        ...(typeof inUse === "boolean" ? {} : { activeUnknown: inUse.unknown }),
        uncommittedChanges: await workIn(deps, r),
      });
    }
    return { ok: true, worktrees };
  } catch (error) {
    const e = asRelayError(error);
    return refuse(e.reason, e.message);
  }
}

/** What a removal did. */
export interface RemovedWorktree {
  ok: true;
  name: string;
  path: string;
  branch: string;
  /** The branch was deleted (it held no commit beyond `base`); else it is kept. */
  branchDeleted: boolean;
}

/** `removeWorktree` (`worktree.ts`) without its queue. */
export async function removeNow(
  deps: WorktreeDeps,
  name: string,
  force: boolean,
  activeIn: ActiveIn,
): Promise<RemovedWorktree | WorktreeRefusal> {
  const { git, root } = deps;
  try {
    const r = (await records(git, root)).find((x) => x.name === name);
    if (!r) return refuse("worktree_not_found", `codex-relay made no worktree named ${name}`);
    const inUse = await activeIn(r.path, r.cwd);
    if (inUse === true) return refuse("worktree_busy", `a run is active in ${r.path}`);
    if (inUse !== false && !force) {
      return refuse(
        "worktree_busy",
        `codex-relay cannot tell whether a run works in ${r.path} (${inUse.unknown}): remove it with force once none does`,
      );
    }
    const git_ = await listing(deps, r.repository);
    if (!git_) {
      return refuse("worktree_not_found", `git cannot list the worktrees of ${r.repository}`);
    }
    if (git_.listed.has(r.path)) {
      const gone = git_.gone.has(r.path);
      if (!gone && !force && (await holdsWork(git, r.path)) !== false) {
        return refuse(
          "worktree_dirty",
          `${r.path} has uncommitted changes or untracked or ignored files: commit them, or remove with force`,
        );
      }
      // Exactly this worktree, by its path (a gone folder: its entry only).
      const args = ["worktree", "remove", ...(force ? ["--force", "--force"] : []), r.path];
      const removed = await run(git, args, r.repository, "worktree_dirty");
      if (typeof removed !== "string") return removed;
    }
    const branchDeleted = await dropBranch(git, r.repository, r.branch, r.base);
    await dropRecord(git, root, name, deps.lockWaits);
    return { ok: true, name, path: r.path, branch: r.branch, branchDeleted };
  } catch (error) {
    const e = asRelayError(error);
    return refuse(e.reason, e.message);
  }
}
