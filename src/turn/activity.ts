/**
 * What Codex is doing, in words, for progress while a turn runs: the kind of
 * work and the names of tools, never text, commands or output; and a request
 * to the model that failed (Codex's own error words, one bounded line).
 * @module
 */

import type { ItemActivity } from "../codex/validate.ts";

/** A progress line for an item Codex started, or undefined when it says nothing useful. */
export function activityText(activity: ItemActivity): string | undefined {
  switch (activity.kind) {
    case "command":
      return "Codex is running a command";
    case "fileChange":
      if (activity.files === 0) return "Codex is editing files";
      return activity.files === 1
        ? "Codex is editing 1 file"
        : `Codex is editing ${activity.files} files`;
    case "mcpTool":
      return `Codex is calling tool ${activity.tool} of server ${activity.server}`;
    case "tool":
      return `Codex is calling tool ${activity.tool}`;
    case "webSearch":
      return "Codex is searching the web";
    case "reasoning":
      return "Codex is thinking";
    case "answer":
      return "Codex is writing a message";
    case "other":
      return undefined;
  }
}

/** The most characters of a line about a failed model request. */
export const STREAM_ERROR_MAX_CHARS = 240;

/**
 * A progress line for a request to the model that failed (an `error`
 * notification): `willRetry` while Codex retries it, else the turn fails.
 * One line of Codex's own words, bounded.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(
 *   streamErrorText(true, "Reconnecting... waiting for network", "Connection failed: error sending request"),
 *   "Codex's model request failed and is retried: Reconnecting... waiting for network (Connection failed: error sending request)",
 * );
 * ```
 */
export function streamErrorText(
  willRetry: boolean,
  message: string | undefined,
  details: string | undefined,
): string {
  const what = [message, details ? `(${details})` : ""].filter(Boolean).join(" ");
  const line = willRetry
    ? `Codex's model request failed and is retried: ${what || "no reason given"}`
    : `Codex's model request failed: ${what || "no reason given"}`;
  const chars = [...line.replace(/\s+/g, " ").trim()];
  return chars.length <= STREAM_ERROR_MAX_CHARS
    ? chars.join("")
    : `${chars.slice(0, STREAM_ERROR_MAX_CHARS - 1).join("")}…`;
}
