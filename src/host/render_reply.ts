/**
 * The text rendering of reply-read results (`codex_read_reply`,
 * `codex_wait_reply`): one paragraph saying what the read found.
 * @module
 */

import type { PendingSummary } from "../turn/run_result.ts";
import type { ReadReplyResult, Reply } from "../reply/schemas.ts";

/** One reply as text: its quoted text, or what Codex's moderation says in its place. */
export function replyText(r: Reply): string {
  if ("moderated" in r) {
    const why = r.blockReason
      ? `, blocked (${r.blockReason})`
      : r.replacement
      ? `, replaced by Codex (${r.replacement})`
      : "";
    return `(withheld: Codex moderated this answer${why}; its text is not returned)`;
  }
  return `${JSON.stringify(r.text)}${r.truncated ? " (truncated)" : ""}`;
}

/** What the text says about requests declined at once. */
export function declinedText(declined: PendingSummary[] | undefined): string {
  if (!declined?.length) return "";
  return ` codex-relay declined ${declined.length} request(s) of Codex it cannot forward to you: ${
    declined.map((d) => d.summary).join("; ")
  }.`;
}

const STATUS_TEXT: Record<string, string> = {
  inProgress: "in progress",
  completed: "completed",
  failed: "failed",
  interrupted: "interrupted",
  unverified:
    "status unverified: it may be running in another Codex process, or be older than the newest 50 turns",
};

const REASON_TEXT: Record<string, string> = {
  thread_not_found: "No Codex thread has this id.",
  legacy_history:
    "The thread is stored in Codex's legacy history mode, whose items cannot be read by id.",
  invalid_cursor:
    "The cursor does not continue this thread and message, or its user message changed; read again without a cursor.",
  timeout: "Codex did not answer within the time allowed.",
  output_limit: "Codex wrote a frame longer than 1 MiB.",
  busy: "Every Codex helper was busy; try again shortly.",
  cancelled: "The call was cancelled.",
  codex_missing:
    "The codex executable was not found on the PATH codex-relay was started with: put the folder of codex in the PATH of its entry in the MCP client (codex-relay install writes it), and see codex-relay doctor.",
  spawn_failed: "The codex app-server could not be started.",
  experimental_unavailable: "This Codex does not offer the read methods the relay needs.",
  not_allowed: "Reply reading is not enabled (--allow-reply-read).",
};

/** One paragraph telling what a read found. */
export function renderReadReply(out: ReadReplyResult): string {
  const about = `message ${out.clientMessageId} in thread ${out.threadId}`;
  switch (out.status) {
    case "observed": {
      const turn = out.turn ? `turn ${out.turn.id} (${STATUS_TEXT[out.turn.status]})` : "a turn";
      const replies = out.replies.length === 0
        ? "It has no final answer yet."
        : `${out.replies.length} final answer(s): ${
          out.replies.map((r) => `[${r.itemId}] ${replyText(r)}`).join("; ")
        }.`;
      const more = out.nextCursor
        ? " More may follow: pass nextCursor as cursor (with codex_read_reply, refresh: true rescans the turn from its start)."
        : "";
      return `Observed: the ${about} was taken by ${turn}. ${replies} Association same_turn_not_exclusive: these are all final answers of the turn that took the message, not a certified answer to it alone.${more}`;
    }
    case "no_match":
      return `No match: no user message carries clientMessageId ${out.clientMessageId} among the items searched in thread ${out.threadId}; it may still be queued, or be older.${
        out.searchCursor
          ? " To search older items, pass searchCursor as cursor."
          : " There are no older items."
      }`;
    case "ambiguous":
      return `Ambiguous: several user messages in thread ${out.threadId} carry clientMessageId ${out.clientMessageId}, so no reply text is returned.`;
    case "unavailable":
      return `Unavailable (${out.reason}): ${
        REASON_TEXT[out.reason ?? ""] ?? "Codex could not be read."
      } No reply text is returned for the ${about}.`;
  }
}
