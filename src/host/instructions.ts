/**
 * The short text telling a model how the tools fit together, per level and
 * backend, and the terms every result shares (said once here, not in every
 * result).
 * @module
 */

import type { Surface } from "./surface.ts";

/** What a `queued` receipt leads to on this backend (shared by the instructions and receipts). */
export function queuedMeans(surface: Surface): string {
  return surface.backend.shared
    ? "stored in the Codex daemon's queue of the thread: a thread the daemon holds idle starts it at once, one with a running turn after that turn, and a thread it has not loaded when a Codex process next resumes it"
    : "stored, not processed yet: it runs when a Codex process next resumes the thread (a process that has the thread open runs it after its next turn)";
}

/** Model-facing instructions of `--compat codex-mcp-server` (the old server's two tools). */
const COMPAT_INSTRUCTIONS =
  "codex-relay, serving the removed codex mcp-server's tools: codex runs a prompt as a new Codex thread to the turn's end and returns {threadId, content}; codex-reply runs the next prompt on that threadId. Codex's approvals come to you as questions.";

/** Model-facing instructions for the tools enabled at the surface's level. */
export function instructionsFor(surface: Surface, channels = false): string {
  const { caps } = surface;
  if (caps.compat) return COMPAT_INSTRUCTIONS;
  const lines = [
    "codex-relay hands messages to local OpenAI Codex threads.",
    "Use codex_list_threads to find a thread, then codex_queue_message to store a message in its queue; keep the receipt's clientMessageId.",
    "Every tool that takes a threadId accepts the thread's id or its exact name when exactly one thread has it (several: ambiguous_name, nothing done).",
    `A \`queued\` receipt means ${
      queuedMeans(surface)
    }; \`unknown\` means it may have been stored: never resend without checking.`,
    "Every result's structured content has `next`: what to do next (the text content ends with the same). Results that could not do their job carry a `reason` code (thread_not_found, ambiguous_name, timeout, busy, codex_missing, not_allowed, ...).",
  ];
  if (caps.replyRead) {
    lines.push(
      "codex_read_reply returns the final-answer text of the turn that took your message (pass threadId and clientMessageId); codex_wait_reply waits for it up to 55 s per call. Follow nextCursor for more replies and searchCursor for older history.",
    );
  }
  if (caps.turnStart) {
    lines.push(
      `codex_run runs a message as a Codex turn now (in an existing thread or a new one in a directory) and forwards Codex's approval requests to you as questions (not_logged_in: Codex has no login or key; nothing was queued); codex_interrupt stops a running turn (one still queued is withdrawn); codex_withdraw_message takes a message back while it is still queued; codex_list_threads also lists your runs (ended ones once). codex_review runs Codex's code review (findings with file and lines); codex_run's outputSchema makes the final answer JSON checked against it (structured); codex_steer adds input to your running turn; codex_usage shows Codex's rate limits before you delegate (each run's result has its token usage); codex_fork copies a thread's history into a new thread; codex_compact shrinks an idle thread's context. ${
        surface.backend.shared
          ? "Turns run in the Codex daemon and keep running if codex-relay exits."
          : "Turns run inside codex-relay and end when it exits."
      }`,
    );
  }
  if (caps.worktrees) {
    lines.push(
      "codex_run {cwd, worktree: true} runs a new thread in a git worktree of its own (the result's worktree says where and how to diff it); codex_worktree lists and removes those worktrees. Results name changedFiles, never their contents.",
    );
  }
  if (channels) {
    lines.push(
      'A <channel source="codex-relay"> message says that a run you started ended while you were not waiting for it (its status, first lines, the next call): act on it as on codex_wait_reply\'s result; it is sent once per run, never for a run whose end you already saw.',
    );
  }
  return lines.join(" ");
}
