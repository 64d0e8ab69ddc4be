/**
 * What a run's result says when one of Codex's requests was cancelled rather
 * than answered: which kind of request, what it asked (its one-line summary:
 * the command, the tool, the question) and who cancelled it. A cancelled
 * approval makes Codex stop the turn, so without this the run would end as a
 * bare `interrupted` (Claude Code in `-p` mode cancels every approval unless a
 * hook answers it). Pure, no I/O.
 * @module
 */

/** Who cancelled a request. */
export type CancelledBy = "client" | "deadline";

/** A request of Codex that was answered `cancel`. */
export interface Cancelled {
  /** The Codex method of the request. */
  method: string;
  /** What it asked, on one line, as the client was shown it (no answer content). */
  summary: string;
  /** The MCP client answered cancel, or nobody answered within the deadline. */
  by: CancelledBy;
}

const KINDS: Record<string, string> = {
  "item/commandExecution/requestApproval": "command approval",
  "item/fileChange/requestApproval": "file change approval",
  "item/permissions/requestApproval": "permissions request",
  "item/tool/requestUserInput": "question",
  "mcpServer/elicitation/request": "MCP server request (a tool approval or a form)",
};

/** The kind of a Codex request in words ("command approval"). */
export function requestKind(method: string): string {
  return KINDS[method] ?? `request ${method}`;
}

const BY: Record<CancelledBy, string> = {
  client:
    "the MCP client answered cancel (Claude Code in -p mode does so for every approval that no hook answers)",
  deadline: "nobody answered it within 10 minutes, so codex-relay answered cancel",
};

/**
 * The note a run's result carries for a cancelled request.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const note = cancelledNote({
 *   method: "item/commandExecution/requestApproval",
 *   summary: "Codex wants to run: touch x",
 *   by: "client",
 * });
 * assert.match(note, /^Codex's command approval "Codex wants to run: touch x" was cancelled: the MCP client/);
 * ```
 */
export function cancelledNote(c: Cancelled): string {
  return `Codex's ${requestKind(c.method)} "${c.summary.slice(0, 300)}" was cancelled: ${
    BY[c.by]
  }; Codex stops the turn when a request is cancelled`;
}
