/**
 * The git steps the worktree operations share: a command whose non-zero exit
 * is a refusal, a write of the record that waits for another process's lock
 * (a bounded retry, then `worktree_locked`), the records, whether a worktree
 * holds work, and a branch deleted only when it is where this relay left it.
 * @module
 */

import type { ReasonCode } from "../core/errors.ts";
import type { Git } from "../connect/process/git_runner.ts";
import {
  listedWorktrees,
  lockedOut,
  lockWaits,
  parseRecords,
  recordFile,
  type WorktreeRecord,
} from "./worktree_record.ts";

/** What the worktree operations run on. */
export interface WorktreeDeps {
  git: Git;
  /** The folder of this relay's worktrees (and of its record). */
  root: string;
  /** The waits (ms) of a write of the record while another process holds its lock (`lockWaits`). */
  lockWaits?: readonly number[];
}

/** Whether a run works in a worktree: yes, no, or unknown (and why the relay cannot tell). */
export type InUse = boolean | { unknown: string };

/**
 * Whether a run works in the worktree at `path` (its thread's cwd is in it;
 * `cwd`: the folder of it its run was started in, when recorded).
 */
export type ActiveIn = (path: string, cwd?: string) => InUse | Promise<InUse>;

/** Why a worktree step did nothing (or undid what it did). */
export interface WorktreeRefusal {
  ok: false;
  reason: ReasonCode;
  message: string;
}

/** A refusal with `reason`. */
export const refuse = (reason: ReasonCode, message: string): WorktreeRefusal => ({
  ok: false,
  reason,
  message,
});

/** git's last words, or how it exited. */
function said(args: readonly string[], out: { code: number; stderr: string }): string {
  const words = out.stderr.trim().split("\n").slice(-2).join(" ") || `git exited ${out.code}`;
  return `git ${args[0]}: ${words}`;
}

/** The refusal with `reason` of a git command that failed, in git's own words. */
export function refusedBy(
  reason: ReasonCode,
  args: readonly string[],
  out: { code: number; stderr: string },
): WorktreeRefusal {
  return refuse(reason, said(args, out));
}

/** Runs git; a non-zero exit is a refusal with `reason` and git's own words. */
export async function run(
  git: Git,
  args: string[],
  cwd: string | undefined,
  reason: ReasonCode,
): Promise<string | WorktreeRefusal> {
  const out = await git(args, cwd);
  return out.code === 0 ? out.stdout : refusedBy(reason, args, out);
}

/**
 * Writes the record (`git config --file …`): while another process holds the
 * file's lock it tries again after each of {@linkcode lockWaits}, then it is
 * `worktree_locked`; any other failure is `not_allowed`.
 */
export async function writeRecord(
  git: Git,
  args: string[],
  waits: readonly number[] = lockWaits(),
): Promise<string | WorktreeRefusal> {
  for (let i = 0;; i++) {
    const out = await git(args);
    if (out.code === 0) return out.stdout;
    if (!lockedOut(out.stderr)) return refuse("not_allowed", said(args, out));
    if (i === waits.length) {
      return refuse(
        "worktree_locked",
        `another process kept the worktree record locked: ${said(args, out)}`,
      );
    }
    // Stryker disable next-line ArithmeticOperator: the jitter only spreads two relays' retries in time; no result depends on it
    await new Promise((resolve) => setTimeout(resolve, waits[i] * (1 + Math.random())));
  }
}

/** The records of the worktrees this relay made (none when the record does not exist). */
export async function records(git: Git, root: string): Promise<WorktreeRecord[]> {
  const out = await git([
    "config",
    "--file",
    recordFile(root),
    "--null",
    "--get-regexp",
    "^worktree\\.",
  ]);
  // Stryker disable next-line ConditionalExpression: a failed read prints no record (parseRecords("") is [])
  return out.code === 0 ? parseRecords(out.stdout) : [];
}

/** Removes the record of `name` (all its fields and claims). */
export function dropRecord(
  git: Git,
  root: string,
  name: string,
  waits?: readonly number[],
): Promise<unknown> {
  return writeRecord(git, [
    "config",
    "--file",
    recordFile(root),
    "--remove-section",
    `worktree.${name}`,
  ], waits);
}

/**
 * Whether the worktree at `path` holds work a removal would lose: changes,
 * untracked and ignored files (`git worktree remove` deletes ignored ones);
 * null when git cannot tell.
 */
export async function holdsWork(git: Git, path: string): Promise<boolean | null> {
  const out = await git(["status", "--porcelain", "--ignored", "--untracked-files=normal"], path);
  // Stryker disable next-line MethodExpression: git status --porcelain prints nothing for a clean worktree, never only whitespace
  return out.code === 0 ? out.stdout.trim() !== "" : null;
}

/**
 * Deletes `branch` of `repository` only when it holds no commit beyond
 * `base` and no worktree has it checked out, and only if it still points
 * where it was read (`update-ref -d <ref> <commit>`). Whether it was deleted.
 */
export async function dropBranch(
  git: Git,
  repository: string,
  branch: string,
  base: string,
): Promise<boolean> {
  const ref = `refs/heads/${branch}`;
  const at = await git(["rev-parse", "--verify", "--quiet", ref], repository);
  // Stryker disable next-line ConditionalExpression: a branch rev-parse cannot read, rev-list cannot count either (kept below)
  if (at.code !== 0) return false;
  const ahead = await git(["rev-list", "--count", `${base}..${ref}`], repository);
  if (ahead.code !== 0 || ahead.stdout.trim() !== "0") return false;
  const listed = await git(["worktree", "list", "--porcelain"], repository);
  if (listed.code !== 0 || [...listedWorktrees(listed.stdout).values()].includes(branch)) {
    return false;
  }
  return (await git(["update-ref", "-d", ref, at.stdout.trim()], repository)).code === 0;
}
