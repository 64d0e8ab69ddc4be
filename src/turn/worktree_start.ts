/**
 * The worktree step of a start whose destination is a new worktree: made
 * after the run's checks (so a refused run makes none), the run started in
 * the same folder of it as `cwd` is of the repository with the worktree as
 * its destination, and taken down again when nothing was sent.
 * @module
 */

import type { ReasonCode } from "../core/errors.ts";
import { makeWorktree, removeWorktree, type WorktreeDeps } from "../ops/worktree.ts";
import { type Destination, worktreeHowTo } from "./run_facts.ts";

/** What this step reads of a start's result (`turn_start.ts`'s `StartResult`). */
interface StartLike {
  runtime?: unknown;
  receipt: { status: string };
}

/** Why a worktree cannot be made without its folder. */
const NO_WORKTREES_FOLDER = "no worktrees folder: CODEX_HOME and HOME are unset";

/**
 * Makes the worktree `wish.name` of `cwd`'s repository and starts the run
 * there (`start`); a worktree that cannot be made is `notSent` with why.
 */
export async function startInWorktree<R extends StartLike>(
  cwd: string,
  wish: { name: string; deps: WorktreeDeps | undefined },
  notSent: (reason: ReasonCode, message: string) => R,
  start: (at: { cwd: string }, destination: Destination) => Promise<R>,
): Promise<R> {
  const { name, deps } = wish;
  const made = deps ? await makeWorktree(deps, cwd, name) : undefined;
  if (!made?.ok) {
    return notSent(made?.reason ?? "not_allowed", made?.message ?? NO_WORKTREES_FOLDER);
  }
  const worktree = { ...made.worktree, howTo: worktreeHowTo(made.worktree) };
  const at = { cwd: made.cwd };
  const started = await start(at, { kind: "worktree", cwd: made.cwd, worktree, git: deps!.git });
  if (!started.runtime && started.receipt.status === "not_sent") {
    await removeWorktree(deps!, name, true, () => false);
  }
  return started;
}
