/**
 * `codex_list_threads`: thread ids, names, statuses and update times. No
 * preview, cwd or message text at any level.
 * @module
 */

import { z } from "zod";
import { asRelayError } from "../../core/errors.ts";
import { listThreads, type ThreadList, threadListSchema } from "../../ops/list_threads.ts";
import type { Tool } from "../tool.ts";

const input = z.strictObject({
  limit: z.number().int().min(1).max(50).default(20).describe(
    "Threads per page, 1 to 50 (default 20)",
  ),
  cursor: z.string().min(1).max(4096).optional().describe("`nextCursor` of a previous page"),
});

/** The `codex_list_threads` tool. */
export const listThreadsTool: Tool<typeof input, typeof threadListSchema> = {
  name: "codex_list_threads",
  title: "List Codex threads",
  description:
    "Lists the local Codex threads, most recently updated first: id, name, status (idle, active, notLoaded, or systemError when Codex could not load it) and last update time. Returns no conversation content. Page with `cursor` = the previous `nextCursor`. Use a thread's id (or its exact name) with codex_queue_message.",
  inputSchema: input,
  outputSchema: threadListSchema,
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  enabled: () => true,
  async run({ limit, cursor }, ctx): Promise<ThreadList> {
    try {
      return await ctx.connection.operation((s) => listThreads(s, { limit, cursor }), {
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
    if (out.status !== "ok") return `Could not list Codex threads (${out.reason}): ${out.message}`;
    if (out.threads.length === 0) return "There are no Codex threads.";
    const lines = out.threads.map((t) =>
      `${t.id}${t.name ? ` "${t.name}"` : ""}: ${t.status}, updated ${t.updatedAt}`
    );
    const more = out.nextCursor ? " More threads follow: pass nextCursor as cursor." : "";
    return `${out.threads.length} Codex thread(s), most recent first: ${lines.join("; ")}.${more}`;
  },
};
