/**
 * `codex_run {cwd, worktree}` (with `--allow-worktrees`): the run's new
 * thread works in a git worktree made for it (`ops/worktree.ts`), and its
 * result names the worktree. Also the words a run's result says about the
 * files it changed.
 * @module
 */

import { z } from "zod";
import { mintRunId } from "../../reply/run_id.ts";
import { makeWorktree, removeWorktree } from "../../ops/worktree.ts";
import { derivedName, WORKTREE_NAME } from "../../ops/worktree_record.ts";
import { type WorktreeInfo, worktreeSchema } from "../../reply/files_schema.ts";
import { runOutput, type RunResult } from "../../reply/schemas.ts";
import type { StartResult } from "../../turn/turn_start.ts";
import type { CallContext } from "../tool.ts";

/** `codex_run`'s `worktree` field (registered with `--allow-worktrees` only). */
export const worktreeField = z.union([z.literal(true), z.string().regex(WORKTREE_NAME)])
  .optional().describe(
    "New thread only: run in a new git worktree of cwd's repository (branch codex/<name> from HEAD): true, or its name",
  );

/** `codex_run`'s result with `--allow-worktrees`: the worktree the run works in. */
export const runWorktreeOutput = runOutput.extend({ worktree: worktreeSchema.optional() });

/** `codex_run`'s result with a worktree. */
export type RunWorktreeResult = z.output<typeof runWorktreeOutput>;

/**
 * Makes the worktree, then starts the run in the same folder of it as `cwd`
 * is of the repository. A worktree that cannot be made is `not_sent` with
 * the reason; a run that was not sent takes its new worktree down again.
 */
export async function startInWorktree(
  ctx: CallContext,
  cwd: string,
  worktree: true | string,
  start: (cwd: string) => Promise<StartResult>,
): Promise<{ start: StartResult; worktree?: WorktreeInfo }> {
  const deps = ctx.worktrees;
  const name = worktree === true
    ? derivedName(new Date(), crypto.randomUUID().slice(0, 4))
    : worktree;
  const made = deps ? await makeWorktree(deps, cwd, name) : {
    ok: false as const,
    reason: "not_allowed" as const,
    message: "no worktrees folder: CODEX_HOME and HOME are unset",
  };
  if (!made.ok) {
    const { reason, message } = made;
    const receipt = {
      status: "not_sent" as const,
      reason,
      message,
      clientMessageId: mintRunId(),
      threadId: "",
    };
    return { start: { receipt, reason, message } };
  }
  const started = await start(made.cwd);
  if (!started.runtime && started.receipt.status === "not_sent") {
    await removeWorktree(deps!, name, true, () => false);
    return { start: started };
  }
  started.runtime?.filesIn(made.cwd, made.worktree.path);
  return { start: started, worktree: made.worktree };
}

/** What a result says about the files its run changed and the worktree it ran in. */
export function filesText(out: RunResult & { worktree?: WorktreeInfo }): string {
  const files = out.changedFiles;
  const listed = files?.length
    ? `Changed ${out.changedFilesCount} file(s) (changedFiles): ${
      files.slice(0, 5).map((f) => `${f.path} (${f.kind})`).join(", ")
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
