/**
 * `codex_run {cwd, worktree}` (with `--allow-worktrees`): the run's new
 * thread works in a git worktree the turn start makes for it (a kind of
 * destination, `turn/run_facts.ts`), and every result of the run names the
 * worktree (`codex_run`, its input rounds, `codex_wait_reply`, the list's
 * `runs`): the result schemas with `worktree` are here (the list's, and the
 * field itself: `reply/thread_schemas.ts`). Also the words a run's result
 * says about the files it changed.
 * @module
 */

import { z } from "zod";
import { derivedName, WORKTREE_NAME } from "../../ops/worktree_record.ts";
import type { WorktreeInfo } from "../../reply/files_schema.ts";
import {
  runOutput,
  type RunResult,
  waitMessageSchema,
  waitReplySchema,
  withWorktree,
} from "../../reply/schemas.ts";

/** `codex_run`'s `worktree` field (registered with `--allow-worktrees` only). */
export const worktreeField = z.union([z.literal(true), z.string().regex(WORKTREE_NAME)])
  .optional().describe(
    "New thread only: run in a new git worktree of cwd's repository (branch codex/<name> from HEAD): true, or its name",
  );

/** `codex_run`'s result with `--allow-worktrees`: the worktree the run works in. */
export const runWorktreeOutput = runOutput.extend(withWorktree);

/** `codex_run`'s result with a worktree. */
export type RunWorktreeResult = z.output<typeof runWorktreeOutput>;

/** `codex_wait_reply`'s result with `--allow-worktrees`: a followed run's worktree too. */
export const waitReplyWorktreeSchema = waitReplySchema.extend({
  ...withWorktree,
  messages: z.array(waitMessageSchema.extend(withWorktree)).optional(),
});

/** The name of a run's new worktree: the one given, or one derived from now. */
export function worktreeName(worktree: true | string): string {
  return worktree === true ? derivedName(new Date(), crypto.randomUUID().slice(0, 4)) : worktree;
}

/** What a result says about the files its run changed and the worktree it ran in. */
export function filesText(out: RunResult & { worktree?: WorktreeInfo }): string {
  const files = out.changedFiles;
  const listed = files?.length
    ? `Changed ${out.changedFilesCount} file(s) (changedFiles): ${
      files.slice(0, 5).map((f) => `${f.path} (${f.kind}${f.outside ? ", outside cwd" : ""})`)
        .join(", ")
    }${(out.changedFilesCount ?? 0) > 5 ? ", …" : ""}`
    : "";
  const wt = out.worktree;
  const where = wt
    ? `It ran in the worktree ${wt.path} (branch ${wt.branch} from ${wt.base}${
      wt.uncommittedLeftOut ? "; your uncommitted changes were not carried over" : ""
    }). ${wt.howTo ?? ""}`
    : "";
  return [listed, where].filter((x) => x).join(". ");
}
