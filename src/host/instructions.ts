/**
 * The short text telling a model how the tools fit together, per level, and
 * the terms every result shares (said once here, not in every result).
 * @module
 */

import type { Capabilities } from "../core/capabilities.ts";

/** Model-facing instructions for the tools enabled at `caps`. */
export function instructionsFor(caps: Capabilities): string {
  const lines = [
    "codex-relay hands messages to local OpenAI Codex threads.",
    "Use codex_list_threads to find a thread, then codex_queue_message to store a message in its queue; keep the receipt's clientMessageId. codex_withdraw_message takes a message back while it is still queued.",
    "Every tool that takes a threadId accepts the thread's id or its exact name when exactly one thread has it (several: ambiguous_name, nothing done).",
    "A `queued` receipt means stored, not processed; `unknown` means it may have been stored: never resend without checking.",
    "Results that could not do their job carry a `reason` code (thread_not_found, ambiguous_name, timeout, busy, codex_missing, not_allowed, ...) and a `message`; the text content says what happened and what to do next.",
  ];
  if (caps.replyRead) {
    lines.push(
      "codex_read_reply returns the final-answer text of the turn that took your message (pass threadId and clientMessageId); codex_wait_reply waits for it up to 55 s per call. Follow nextCursor for more replies and searchCursor for older history.",
    );
  }
  if (caps.turnStart) {
    lines.push(
      "codex_run runs a message as a Codex turn now (in an existing thread or a new one in a directory) and forwards Codex's approval requests to you as questions; codex_interrupt stops a running turn.",
    );
  }
  return lines.join(" ");
}
