/**
 * `codex_list_threads`: thread ids, names, statuses and update times. No
 * preview, cwd or message text at any level.
 * @module
 */

import { z } from "zod";
import { asRelayError } from "../../core/errors.ts";
import { parseThreadList } from "../../codex/validate.ts";
import { reasonSchema } from "../../core/errors.ts";
import type { Tool } from "../tool.ts";

const input = z.strictObject({
  limit: z.number().int().min(1).max(50).default(20).describe(
    "Threads per page, 1 to 50 (default 20)",
  ),
  cursor: z.string().min(1).max(4096).optional().describe("`nextCursor` of a previous page"),
});

const threadSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  status: z.enum(["idle", "active", "notLoaded", "systemError"]),
  updatedAt: z.string().describe("ISO 8601 time of the thread's last update"),
});

const output = z.object({
  status: z.enum(["ok", "unavailable"]),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  threads: z.array(threadSchema),
  nextCursor: z.string().nullable(),
});

type Output = z.output<typeof output>;

/** The `codex_list_threads` tool. */
export const listThreads: Tool<typeof input, typeof output> = {
  name: "codex_list_threads",
  title: "List Codex threads",
  description:
    "Lists the local Codex threads, most recently updated first: id, name, status (idle, active, notLoaded, or systemError when Codex could not load it) and last update time. Returns no conversation content. Page with `cursor` = the previous `nextCursor`. Use a thread's id (or its exact name) with codex_queue_message.",
  inputSchema: input,
  outputSchema: output,
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  enabled: () => true,
  async run({ limit, cursor }, ctx): Promise<Output> {
    try {
      const page = await ctx.connection.operation(
        async (s) =>
          parseThreadList(await s.call("thread/list", cursor ? { limit, cursor } : { limit })),
        { signal: ctx.signal, label: "list" },
      );
      return {
        status: "ok",
        threads: page.data.slice(0, limit).map((t) => ({
          id: t.id,
          name: t.name,
          status: t.status,
          updatedAt: new Date(t.updatedAt * 1000).toISOString(),
        })),
        nextCursor: page.nextCursor,
      };
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
