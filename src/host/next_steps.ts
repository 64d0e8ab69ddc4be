/**
 * What an agent should do next, said once for both channels: each tool
 * explains a result as what happened (`said`, text only) and what to do next
 * (`next`), and the server puts `next` into the structured content as well as
 * at the end of the text. Some clients (Claude Code) give their model only the
 * structured content, so `next` must be enough to act on. Pure, no I/O.
 * @module
 */

import { z } from "zod";
import type { ReasonCode } from "../core/errors.ts";

/** A result explained: what happened, then what to do next. */
export interface Explained {
  /** What happened (the text content only; the structured fields carry the facts). */
  said: string;
  /** What to do next: the last sentences of the text and the result's `next` field. */
  next: string;
}

/** The most characters a `next` may have (a hint, not a report: the fields carry the facts). */
export const NEXT_MAX_CHARS = 600;

/**
 * The text content of an explained result: what happened, then what to do next.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(textOf({ said: "Queued.", next: "Wait for it." }), "Queued. Wait for it.");
 * ```
 */
export function textOf(e: Explained): string {
  return [e.said.trim(), e.next.trim()].filter((p) => p !== "").join(" ");
}

/**
 * The next step after a result that carries `reason`, for every reason code
 * (the `message` field, where there is one, says what went wrong).
 */
export const REASON_NEXT: Readonly<Record<ReasonCode, string>> = Object.freeze({
  thread_not_found: "Find the thread's id with codex_list_threads.",
  legacy_history: "Its items cannot be read through codex-relay; open the thread in Codex itself.",
  experimental_unavailable:
    "Update Codex to a supported release (the relay's doctor command names them).",
  invalid_cursor: "Call again without a cursor.",
  held_elsewhere:
    "Another Codex process has the thread open; it runs the queued message after its own turn. Try again once that process has let the thread go.",
  timeout: "Try again; if it keeps timing out, run the relay's doctor command.",
  output_limit: "Codex's answer was too large to read; this cannot be read through codex-relay.",
  spawn_failed: "Run the relay's doctor command to see why codex does not start.",
  codex_missing:
    "Put codex's folder on the PATH of the relay's entry in the MCP client, then restart the relay.",
  protocol_error: "Try again; if it happens again, the relay's log (stderr) says more.",
  busy: "Try again in a few seconds.",
  cancelled: "Call again if it is still wanted.",
  not_allowed: "Not possible at this capability level or with these options: see message.",
  ambiguous_name: "Give the thread's id (codex_list_threads lists them).",
  turn_running:
    "codex-relay already runs a turn on this thread: wait for it or interrupt it first.",
  rpc_error: "See message; try again if it looks transient.",
  connection_lost: "Call again: the next call reconnects.",
  daemon_unavailable: "Start one with `codex app-server daemon start`, then call again.",
  cwd_not_found: "Give an existing absolute directory as cwd.",
  not_logged_in:
    "Log Codex in (`codex login`) or give the relay the provider's key variable, then call again.",
  not_queued_here: "Only a message this codex-relay process queued can be withdrawn.",
  invalid_schema:
    "Make outputSchema strict (every object closed with additionalProperties false, every property required), then call again.",
  unknown_model: "Pick a model and effort Codex offers (see message), then call again.",
  git_missing: "Install git, then run `codex-relay install` again so the relay may run it.",
  not_a_repository: "Give a cwd inside a git repository with at least one commit.",
  worktree_exists:
    'Pick another worktree name (action "list" of the worktree tool shows this relay\'s).',
  worktree_not_found: 'Action "list" of the worktree tool shows the worktrees this relay made.',
  worktree_busy:
    "Wait for the run in it to end (or interrupt it), then remove it; force: true removes it when no run can be working there.",
  worktree_locked: "Another codex-relay is changing its worktrees: try again in a moment.",
  worktree_dirty: "Commit or discard its changes, or remove it with force: true.",
  account_required:
    "Codex gives this only with a ChatGPT login (codex login); with an API key, watch usage in each run's result instead.",
});

/** The next step after a failure with `reason` (a generic one when there is none). */
export function reasonNext(reason: ReasonCode | undefined): string {
  return reason ? REASON_NEXT[reason] : "Try again.";
}

/**
 * `schema` with the `next` field every result carries. Results are objects;
 * any other schema is returned as is.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * import { z } from "zod";
 * const schema = withNext(z.object({ status: z.string() }));
 * assert.deepEqual(schema.parse({ status: "queued", next: "Wait." }), {
 *   status: "queued",
 *   next: "Wait.",
 * });
 * ```
 */
export function withNext(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodObject ? schema.extend({ next: z.string() }) : schema;
}
