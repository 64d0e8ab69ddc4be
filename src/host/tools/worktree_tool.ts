/**
 * `codex_worktree` (with `--allow-worktrees`): lists the git worktrees this
 * relay made for runs, and removes one (`src/ops/worktree.ts`). It never
 * touches a worktree or branch it did not make.
 * @module
 */

import { z } from "zod";
import { type ActiveIn, listWorktrees, removeWorktree } from "../../ops/worktree.ts";
import { codexInUse, within } from "../../ops/worktree_active.ts";
import { asRelayError } from "../../core/errors.ts";
import { WORKTREE_NAME } from "../../ops/worktree_record.ts";
import { type WorktreeToolResult, worktreeToolSchema } from "../../reply/files_schema.ts";
import type { CallContext, Tool } from "../tool.ts";
import { sentences } from "../text.ts";
import { reasonNext } from "../next_steps.ts";

const input = z.strictObject({
  action: z.enum(["list", "remove"]).describe("list this relay's worktrees, or remove one"),
  name: z.string().regex(WORKTREE_NAME).optional().describe("The worktree to remove"),
  force: z.boolean().default(false).describe(
    "remove: even with uncommitted changes (they are lost)",
  ),
}).refine((v) => v.action !== "remove" || v.name !== undefined, {
  message: "remove needs the worktree's name",
});

/**
 * Whether a run works in the folder `path`: one of this relay's (its
 * thread's cwd is in it), else as Codex tells it (`ops/worktree_active.ts`).
 */
function activeIn(ctx: CallContext): ActiveIn {
  return (path, cwd) => {
    const mine = ctx.turns.lives().some((run) => {
      const at = run.handle?.cwd;
      return at !== undefined && within(at, path);
    });
    if (mine) return true;
    return ctx.connection.operation((s) => codexInUse(s, path, cwd), {
      signal: ctx.signal,
      label: "worktree",
    }).catch((error) => ({ unknown: `Codex could not be asked: ${asRelayError(error).message}` }));
  };
}

/** The `codex_worktree` tool. */
export const worktreeTool: Tool<typeof input, typeof worktreeToolSchema> = {
  name: "codex_worktree",
  title: "Worktrees of runs",
  description:
    "Lists the git worktrees codex-relay made for codex_run {worktree} (name, path, branch, base, active, uncommittedChanges), or removes one (not while a run may be active in it, nor with uncommitted, untracked or ignored files, unless force; its branch only when it has no commit beyond base).",
  inputSchema: input,
  outputSchema: worktreeToolSchema,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  enabled: (caps) => caps.turnStart && caps.worktrees === true,
  async run(args, ctx): Promise<WorktreeToolResult> {
    const deps = ctx.worktrees;
    if (!deps) {
      return {
        status: "refused",
        reason: "not_allowed",
        message: "no worktrees folder: CODEX_HOME and HOME are unset",
      };
    }
    if (args.action === "list") {
      const listed = await listWorktrees(deps, activeIn(ctx));
      return listed.ok
        ? { status: "listed", worktrees: listed.worktrees }
        : { status: "refused", reason: listed.reason, message: listed.message };
    }
    const removed = await removeWorktree(deps, args.name!, args.force, activeIn(ctx));
    if (!removed.ok) return { status: "refused", reason: removed.reason, message: removed.message };
    const { ok: _, ...what } = removed;
    return { status: "removed", removed: what };
  },
  explain(out) {
    if (out.status === "listed") {
      const list = out.worktrees ?? [];
      const lines = list.map((w) =>
        `${w.name}: ${w.path} (branch ${w.branch} from ${w.base}${
          w.active
            ? ", a run is active"
            : w.active === null
            ? `, a run may be active (${w.activeUnknown})`
            : ""
        }${w.uncommittedChanges ? ", uncommitted changes" : ""})`
      );
      return {
        said: list.length
          ? `codex-relay's worktrees: ${lines.join("; ")}.`
          : "codex-relay made no worktree.",
        next: list.length
          ? 'Read one with git -C <path> diff <base>; remove it with codex_worktree {action: "remove", name}.'
          : "codex_run {cwd, text, worktree: true} runs a new thread in a worktree of its own.",
      };
    }
    if (out.status === "removed") {
      const r = out.removed!;
      return {
        said: `Removed the worktree ${r.name} (${r.path}); ${
          r.branchDeleted
            ? `its branch ${r.branch} was deleted`
            : `its branch ${r.branch} is kept: it has commits`
        }.`,
        next: "Nothing more to do for it.",
      };
    }
    return {
      said: sentences(`Refused (${out.reason}): ${out.message ?? ""}`),
      next: reasonNext(out.reason),
    };
  },
};
