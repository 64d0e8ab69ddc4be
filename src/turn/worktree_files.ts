/**
 * Git's view of what a run changed in its worktree, at the run's end: every
 * file that differs from the worktree's `base` (committed or not) and every
 * untracked file not ignored, a shell command's writes too. Read-only git
 * commands (no hook runs, no index refresh), through the relay's one git runner.
 * @module
 */

import type { Git } from "../connect/process/git_runner.ts";
import type { ChangedFile } from "../reply/files_schema.ts";
import { parseNameStatus } from "./changed_files.ts";

/**
 * The files the worktree at `root` changed against `base`, by path relative
 * to `root`; undefined when git cannot tell (the folder gone, `base` unknown).
 *
 * @example
 * ```ts ignore
 * await gitChangedFiles(gitRunner("git"), "/w/job-1", "3f2a…"); // [{path: "sub/x", kind: "add"}]
 * ```
 */
export async function gitChangedFiles(
  git: Git,
  root: string,
  base: string,
): Promise<ChangedFile[] | undefined> {
  const diff = await git(
    [
      "--no-optional-locks",
      "diff",
      "--name-status",
      "-z",
      "--no-renames",
      "--no-ext-diff",
      base,
      "--",
    ],
    root,
  );
  if (diff.code !== 0) return undefined;
  const untracked = await git([
    "--no-optional-locks",
    "ls-files",
    "-z",
    "--others",
    "--exclude-standard",
  ], root);
  if (untracked.code !== 0) return undefined;
  return parseNameStatus(diff.stdout, untracked.stdout);
}
