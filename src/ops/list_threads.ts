/**
 * Listing threads: ids, names, statuses and update times, never previews or
 * message text.
 * @module
 */

import { z } from "zod";
import { reasonSchema } from "../core/errors.ts";
import { THREAD_STATUSES } from "../codex/types.ts";
import type { Session } from "../connect/connection.ts";
import { earlierRuns, type EarlierScan, listedRunSchema } from "./listed_runs.ts";

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

/** The `codex_list_threads` result at the turn-start level: with this relay's runs. */
export const threadListWithRunsSchema = threadListSchema.extend({
  runs: z.array(listedRunSchema).optional(),
});

/** The `codex_list_threads` result (`runs` at the turn-start level only). */
export type ThreadList = z.output<typeof threadListWithRunsSchema>;

/** What to list. */
export interface ListOptions {
  limit: number;
  cursor?: string;
  /** Include each thread's cwd (turn-start level only). */
  withCwd?: boolean;
  /** Threads this relay runs a turn on: listed as `active` (a fresh helper sees `notLoaded`). */
  running?: ReadonlySet<string>;
  /** Look for running turns of earlier relay processes on the page's active threads (daemon). */
  earlier?: EarlierScan;
}

/** One page of threads, most recently updated first, at most `limit`. */
export async function listThreads(s: Session, options: ListOptions): Promise<ThreadList> {
  const { limit, cursor } = options;
  const page = await s.call("thread/list", cursor ? { limit, cursor } : { limit });
  const shown = page.data.slice(0, limit);
  const runs = options.earlier ? await earlierRuns(s, shown, options.earlier) : undefined;
  return {
    status: "ok",
    threads: shown.map((t) => ({
      id: t.id,
      name: t.name,
      status: options.running?.has(t.id) ? "active" : t.status,
      updatedAt: new Date(t.updatedAt * 1000).toISOString(),
      ...(options.withCwd ? { cwd: t.cwd } : {}),
    })),
    nextCursor: page.nextCursor,
    ...(runs ? { runs } : {}),
  };
}
