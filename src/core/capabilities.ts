/**
 * Capability levels: the serve flags that select a level. Each opt-in flag
 * adds, and the levels stack: `--allow-turn-start` includes reply read (an
 * agent that starts turns reads their answers); nothing else changes (the
 * app-server methods of each level:
 * `src/codex/methods.ts`; the tools: `src/host/tools/all_tools.ts`).
 * @module
 */

import { serveArgs, type ServeValues } from "./serve_options.ts";

/** The capability flags in force. */
export interface Capabilities {
  /** `--allow-reply-read`. */
  replyRead: boolean;
  /** `--allow-turn-start`. */
  turnStart: boolean;
  /** `--allow-worktrees` (with `--allow-turn-start`): `codex_run {worktree}`, `codex_worktree`. */
  worktrees?: boolean;
  /** `--compat codex-mcp-server`: only the old server's `codex` and `codex-reply` tools. */
  compat?: "codex-mcp-server";
}

/**
 * The capabilities of the serve flags given: the levels stack, so the turn-start
 * level includes reply read.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(capabilitiesOf({ allowReplyRead: false, allowTurnStart: true }), {
 *   replyRead: true,
 *   turnStart: true,
 * });
 * ```
 */
export function capabilitiesOf(
  flags: {
    allowReplyRead: boolean;
    allowTurnStart: boolean;
    worktrees?: { git: string };
    compat?: "codex-mcp-server";
  },
): Capabilities {
  return {
    replyRead: flags.allowReplyRead || flags.allowTurnStart,
    turnStart: flags.allowTurnStart,
    ...(flags.worktrees ? { worktrees: true } : {}),
    ...(flags.compat ? { compat: flags.compat } : {}),
  };
}

/** The serve options that select these capabilities (`core/serve_options.ts`). */
export function capabilityValues(caps: Capabilities): ServeValues {
  return {
    allowReplyRead: caps.replyRead,
    allowTurnStart: caps.turnStart,
    ...(caps.worktrees ? { allowWorktrees: true } : {}),
    ...(caps.compat ? { compat: caps.compat } : {}),
  };
}

/** The serve flags that select these capabilities (client entries, printed commands). */
export function capabilityArgs(caps: Capabilities): string[] {
  return serveArgs(capabilityValues(caps));
}
