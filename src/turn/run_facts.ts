/**
 * Where a run goes, one of its facts (with its job, `run_job.ts`): set once
 * when the run is claimed (`RunBook.begin`), never written later,
 * and read by everything that reports the run. A worktree is a kind of
 * destination: the turn start makes it (after the run's checks) and the run
 * keeps `{cwd, worktree}` for every result of it.
 * @module
 */

import type { Git } from "../connect/process/git_runner.ts";
import type { WorktreeInfo } from "../reply/files_schema.ts";

/** Where a run goes. */
export type Destination =
  /** An existing thread (its cwd is its own, read by the start). */
  | { readonly kind: "thread" }
  /** A new thread in `cwd`. */
  | { readonly kind: "cwd"; readonly cwd: string }
  /**
   * A new thread in `cwd`, a folder of the worktree made for the run; `git`
   * tells at the run's end what the run changed there.
   */
  | {
    readonly kind: "worktree";
    readonly cwd: string;
    readonly worktree: Readonly<WorktreeInfo>;
    readonly git: Git;
  };

/** An existing thread's runs: where they go is the thread's. */
export const THREAD: Destination = Object.freeze({ kind: "thread" });

/** The worktree a run works in, as its results name it (none outside a worktree). */
export function worktreeOf(destination: Destination): { worktree?: WorktreeInfo } {
  return destination.kind === "worktree" ? { worktree: { ...destination.worktree } } : {};
}

/**
 * What a worktree run's result tells the agent to do with it: read it, have
 * Codex review it, and remove it by its name.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.ok(worktreeHowTo({ name: "a", path: "/w/a", base: "abc" }).includes('name: "a"'));
 * ```
 */
export function worktreeHowTo(w: Pick<WorktreeInfo, "name" | "path" | "base">): string {
  return `The run's changes are in ${w.path}: read them with \`git -C ${w.path} diff ${w.base}\` ` +
    `(committed and not); have Codex review them with codex_review {cwd: "${w.path}", ` +
    `target: "base", base: "${w.base}"}; remove it with codex_worktree ` +
    `{action: "remove", name: "${w.name}"}.`;
}
