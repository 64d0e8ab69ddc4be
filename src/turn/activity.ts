/**
 * What Codex is doing, in words, for progress while a turn runs: the kind of
 * work and the names of tools, never text, commands or output.
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
