/**
 * The text rendering of reply-read results (`codex_read_reply`,
 * `codex_wait_reply`): what the read found, then what to do next. The
 * terms are explained in the tool descriptions (association, `no_match`), and
 * `no_match` again in the `next` of a result that carries it.
 * @module
 */

import type { ReadReplyResult, Reply, RequestSummary, RunUsage } from "../reply/schemas.ts";
import { type Explained, reasonNext } from "./next_steps.ts";

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

/** What the text says about requests declined at once (a sentence, or empty). */
export function declinedText(declined: RequestSummary[] | undefined): string {
  if (!declined?.length) return "";
  return `codex-relay declined ${declined.length} request(s) of Codex it cannot forward to you: ${
    declined.map((d) => d.summary).join("; ")
  }.`;
}

/**
 * What the text says about a run's token usage, or that Codex told none.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(usageText(undefined), "Codex reported no token usage for this turn.");
 * ```
 */
export function usageText(usage: RunUsage | undefined): string {
  if (!usage) return "Codex reported no token usage for this turn.";
  const window = usage.contextWindow === null ? "" : ` of ${usage.contextWindow}`;
  return `Tokens: ${usage.totalTokens} (input ${usage.inputTokens}, cached ${usage.cachedInputTokens}, output ${usage.outputTokens}, reasoning ${usage.reasoningTokens}); context used ${usage.contextUsed}${window}; thread total ${usage.threadTotal.totalTokens}.`;
}

/** What the text says about requests of Codex waiting for the caller's answer (a sentence, or empty). */
export function pendingText(pending: RequestSummary[] | undefined): string {
  if (!pending?.length) return "";
  return `${pending.length} request(s) from Codex wait for your answer: ${
    pending.map((p) => p.summary).join("; ")
  }.`;
}

const STATUS_TEXT: Record<string, string> = {
  running: "running",
  completed: "completed",
  failed: "failed",
  interrupted: "interrupted",
  unverified: "unverified: may be running elsewhere",
};

/** What an observed turn without a final answer means, by its status. */
const NO_ANSWER: Record<string, string> = {
  completed: "It stored no final answer.",
  failed: "It failed without a final answer.",
  interrupted: "It was interrupted without a final answer.",
};

const REASON_TEXT: Record<string, string> = {
  thread_not_found: "No Codex thread has this id or exact name.",
  ambiguous_name: "Several threads have this name.",
  legacy_history:
    "The thread is stored in Codex's legacy history mode, whose items cannot be read by id.",
  invalid_cursor:
    "The cursor does not continue this thread and message, or its user message changed.",
  timeout: "Codex did not answer within the time allowed.",
  output_limit: "Codex wrote a frame longer than 1 MiB.",
  busy: "Every Codex helper was busy.",
  cancelled: "The call was cancelled.",
  codex_missing: "The codex executable was not found on the PATH codex-relay was started with.",
  connection_lost: "The connection to the app-server daemon was lost.",
  daemon_unavailable: "No app-server daemon answers.",
  spawn_failed: "The codex app-server could not be started.",
  experimental_unavailable: "This Codex does not offer the read methods the relay needs.",
  not_allowed: "Reply reading is not enabled (--allow-reply-read).",
};

/** What `no_match` means, said where an agent meets it (its `next`). */
export const NO_MATCH_MEANS =
  "no_match: no user message with your clientMessageId is in the thread's queue or among the items searched (a page of 100).";

/** How the caller goes on when the turn has no final answer yet. */
export interface RenderOptions {
  /** The next step for a turn still running (default: wait for it). */
  keepWaiting?: string;
  /** Whether codex_run is there (it starts a thread's queue). */
  turnStart?: boolean;
}

/** What a read found, and what to do next. */
export function explainReadReply(out: ReadReplyResult, options: RenderOptions = {}): Explained {
  const about = `message ${out.clientMessageId} in thread ${out.threadId}`;
  switch (out.status) {
    case "observed": {
      const turn = out.turn ? `turn ${out.turn.id} (${STATUS_TEXT[out.turn.status]})` : "a turn";
      const head = `Observed: ${turn} took the ${about}.`;
      const ended = out.turn ? NO_ANSWER[out.turn.status] : undefined;
      const keepWaiting = options.keepWaiting ??
        "Call codex_wait_reply (with nextCursor as cursor) to wait for it.";
      if (out.replies.length > 0) {
        const replies = `${out.replies.length} final answer(s): ${
          out.replies.map((r) => `[${r.itemId}] ${replyText(r)}`).join("; ")
        }.`;
        const next = out.nextCursor
          ? "More may follow: pass nextCursor as cursor."
          : ended !== undefined || out.turn?.status === "interrupted"
          ? "The turn has ended: these are all its final answers."
          : "The replies field holds its final answer(s).";
        return { said: `${head} ${replies}`, next };
      }
      if (ended) {
        return { said: `${head} ${ended}`, next: "The turn has ended: nothing to wait for." };
      }
      return { said: `${head} No final answer yet.`, next: keepWaiting };
    }
    case "no_match":
      return {
        said:
          `Not found among the items searched: no user message with clientMessageId ${out.clientMessageId} in thread ${out.threadId}.`,
        next: `${NO_MATCH_MEANS} ${
          out.searchCursor
            ? "Older items remain: pass searchCursor as cursor to search them."
            : "Read again without a cursor: that also looks in the thread's queue."
        }`,
      };
    case "queued":
      return {
        said:
          `Queued: message ${out.clientMessageId} is still in the queue of thread ${out.threadId}; no turn has taken it yet.`,
        next: out.turnRunning
          ? `A Codex turn runs on the thread now: the message runs after it. ${
            options.keepWaiting ?? "Call codex_wait_reply to wait for it."
          }`
          : `No Codex turn runs on the thread: the message starts only when a Codex process next resumes the thread${
            options.turnStart ? " (or codex_run on the thread, which runs it first)" : ""
          }; waiting does not start it.`,
      };
    case "not_found":
      return {
        said:
          `Not found: no message with clientMessageId ${out.clientMessageId} is in the queue of thread ${out.threadId} or among its items.`,
        next:
          "Check the threadId and clientMessageId (the receipt gives both); a withdrawn message is gone.",
      };
    case "ambiguous":
      return {
        said:
          `Ambiguous: several user messages in thread ${out.threadId} carry clientMessageId ${out.clientMessageId}, so no reply text is returned.`,
        next: "Queue a new message (a new clientMessageId) to ask again.",
      };
    case "unavailable":
      return {
        said: `Unavailable (${out.reason}): ${
          REASON_TEXT[out.reason ?? ""] ?? "Codex could not be read."
        } No reply text is returned for the ${about}.`,
        next: reasonNext(out.reason),
      };
  }
}
