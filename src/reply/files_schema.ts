/**
 * The result fields that name files: what a run changed (`changedFiles`, in
 * `codex_run` and `codex_wait_reply` results) and the worktree a run works in
 * (`worktree`). Kept beside `schemas.ts`, which spreads them in.
 * @module
 */

import { z } from "zod";
import { reasonSchema } from "../core/errors.ts";

/** How a run changed a file. */
export const CHANGE_KINDS = ["add", "delete", "update"] as const;

/** One file a run changed: its path relative to the run's cwd, and how; `outside` the cwd (`../`). */
export const changedFileSchema = z.strictObject({
  path: z.string(),
  kind: z.enum(CHANGE_KINDS),
  outside: z.literal(true).optional(),
});

/** One file a run changed. */
export type ChangedFile = z.output<typeof changedFileSchema>;

/**
 * The files fields of a run's result: at most 200 listed (by path), and how
 * many there are in all. Never contents or diffs.
 */
export const changedFields = {
  changedFiles: z.array(changedFileSchema).optional(),
  changedFilesCount: z.number().int().optional(),
};

/** The worktree a run works in: the folder, its branch, the commit it started from. */
export const worktreeSchema = z.strictObject({
  name: z.string(),
  path: z.string(),
  branch: z.string(),
  base: z.string(),
  /** The user's tree had uncommitted changes, which the worktree does not carry. */
  uncommittedLeftOut: z.boolean(),
  /** How the agent reads and reviews it (git diff, codex_review). */
  howTo: z.string().optional(),
});

/** The worktree of a run. */
export type WorktreeInfo = z.output<typeof worktreeSchema>;

/** One worktree this relay made, as `codex_worktree {action: "list"}` lists it. */
export const listedWorktreeSchema = z.strictObject({
  name: z.string(),
  repository: z.string(),
  path: z.string(),
  branch: z.string(),
  base: z.string(),
  /** A run works in it (Codex has a turn running there); null when the relay cannot tell. */
  active: z.boolean().nullable(),
  /** Why the relay cannot tell whether a run works in it. */
  activeUnknown: z.string().optional(),
  /** It holds work (changes, untracked or ignored files); null when git could not tell. */
  uncommittedChanges: z.boolean().nullable(),
});

/** The `codex_worktree` result. */
export const worktreeToolSchema = z.object({
  status: z.enum(["listed", "removed", "refused"]),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  worktrees: z.array(listedWorktreeSchema).optional(),
  /** What a removal took down: the folder, and the branch when it held no commit beyond base. */
  removed: z.strictObject({
    name: z.string(),
    path: z.string(),
    branch: z.string(),
    branchDeleted: z.boolean(),
  })
    .optional(),
});

/** The `codex_worktree` result. */
export type WorktreeToolResult = z.output<typeof worktreeToolSchema>;
