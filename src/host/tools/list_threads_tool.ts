/**
 * `codex_list_threads`: thread ids, names, statuses and update times; the
 * cwd at the turn-start level only. No preview or message text at any level.
 * @module
 */

import { z } from "zod";
import { asRelayError } from "../../core/errors.ts";
import { listThreads, type ThreadList, threadListSchema } from "../../ops/list_threads.ts";
import { READ_ANNOTATIONS, type Tool } from "../tool.ts";
import { sentences } from "../text.ts";

const input = z.strictObject({
  limit: z.number().int().min(1).max(50).default(20).describe("Threads per page, 1..50"),
  cursor: z.string().min(1).max(4096).optional().describe(
    "nextCursor of an earlier codex_list_threads result (the next page)",
  ),
});

/** The `codex_list_threads` tool. */
export const listThreadsTool: Tool<typeof input, typeof threadListSchema> = {
  name: "codex_list_threads",
  title: "List threads",
  description: ({ caps }) =>
    `Local Codex threads, newest first: id, name, status${
      caps.turnStart ? ", cwd" : ""
    }, update time. No conversation content.`,
  inputSchema: input,
  outputSchema: threadListSchema,
  annotations: READ_ANNOTATIONS,
  enabled: () => true,
  async run({ limit, cursor }, ctx): Promise<ThreadList> {
    const options = {
      limit,
      cursor,
      withCwd: ctx.caps.turnStart,
      running: ctx.caps.turnStart ? ctx.turns.runningThreads() : undefined,
    };
    try {
      return await ctx.connection.operation((s) => listThreads(s, options), {
        signal: ctx.signal,
        label: "list",
      });
    } catch (error) {
      const e = asRelayError(error);
      return {
        status: "unavailable",
        reason: e.reason,
        message: e.message,
        threads: [],
        nextCursor: null,
      };
    }
  },
  render(out) {
    if (out.status !== "ok") {
      return sentences(`Could not list Codex threads (${out.reason}): ${out.message}`);
    }
    if (out.threads.length === 0) return "There are no Codex threads.";
    const lines = out.threads.map((t) =>
      `${t.id}${t.name ? ` "${t.name}"` : ""}: ${t.status}, updated ${t.updatedAt}${
        t.cwd ? `, in ${t.cwd}` : ""
      }`
    );
    const more = out.nextCursor ? " More threads follow: pass nextCursor as cursor." : "";
    return `${out.threads.length} Codex thread(s), newest first: ${lines.join("; ")}.${more}`;
  },
};
