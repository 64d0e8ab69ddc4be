/**
 * Listing threads: ids, names, statuses and update times, never previews or
 * message text.
 * @module
 */

import { z } from "zod";
import { reasonSchema } from "../core/errors.ts";
import { THREAD_STATUSES } from "../codex/types.ts";
import type { Session } from "../connect/connection.ts";

/** One listed thread. */
export const listedThreadSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  status: z.enum(THREAD_STATUSES),
  updatedAt: z.string(),
  /** Turn-start level only (there the client already chooses cwds). */
  cwd: z.string().nullable().optional(),
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

/** What to list. */
export interface ListOptions {
  limit: number;
  cursor?: string;
  /** Include each thread's cwd (turn-start level only). */
  withCwd?: boolean;
  /** Threads this relay runs a turn on: listed as `active` (a fresh helper sees `notLoaded`). */
  running?: ReadonlySet<string>;
}

/** One page of threads, most recently updated first, at most `limit`. */
export async function listThreads(s: Session, options: ListOptions): Promise<ThreadList> {
  const { limit, cursor } = options;
  const page = await s.call("thread/list", cursor ? { limit, cursor } : { limit });
  return {
    status: "ok",
    threads: page.data.slice(0, limit).map((t) => ({
      id: t.id,
      name: t.name,
      status: options.running?.has(t.id) ? "active" : t.status,
      updatedAt: new Date(t.updatedAt * 1000).toISOString(),
      ...(options.withCwd ? { cwd: t.cwd } : {}),
    })),
    nextCursor: page.nextCursor,
  };
}
