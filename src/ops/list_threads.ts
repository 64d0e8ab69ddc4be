/**
 * Listing threads: ids, names, statuses and update times, never previews or
 * message text.
 * @module
 */

import { z } from "zod";
import { reasonSchema } from "../core/errors.ts";
import { THREAD_STATUSES } from "../codex/types.ts";
import { parseThreadList } from "../codex/validate.ts";
import type { Session } from "../connect/connection.ts";

/** One listed thread. */
export const listedThreadSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  status: z.enum(THREAD_STATUSES),
  updatedAt: z.string().describe("ISO 8601 time of the thread's last update"),
});

/** The `codex_list_threads` result. */
export const threadListSchema = z.object({
  status: z.enum(["ok", "unavailable"]),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  threads: z.array(listedThreadSchema),
  nextCursor: z.string().nullable(),
});

/** The `codex_list_threads` result. */
export type ThreadList = z.output<typeof threadListSchema>;

/** One page of threads, most recently updated first, at most `limit`. */
export async function listThreads(
  s: Session,
  { limit, cursor }: { limit: number; cursor?: string },
): Promise<ThreadList> {
  const page = parseThreadList(await s.call("thread/list", cursor ? { limit, cursor } : { limit }));
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
}
