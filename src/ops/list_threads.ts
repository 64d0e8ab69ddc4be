/**
 * Listing threads: ids, names, statuses, folders and update times, never
 * previews or message text; the user's interactive and scripted threads
 * (`LISTED_SOURCE_KINDS`), optionally those whose title holds a search term.
 * @module
 */

import { z } from "zod";
import { reasonSchema } from "../core/errors.ts";
import { LISTED_SOURCE_KINDS, THREAD_STATUSES } from "../codex/types.ts";
import type { Session } from "../connect/connection.ts";
import { earlierRuns, type EarlierScan, listedRunSchema } from "./listed_runs.ts";

/** One listed thread. */
export const listedThreadSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  status: z.enum(THREAD_STATUSES),
  updatedAt: z.string(),
  /** The last segment of the thread's working directory (every level): tells projects apart. */
  folder: z.string().nullable(),
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
  /** The thread sources listed (Codex's source kinds): interactive and scripted, no sub-agents. */
  sources: z.array(z.string()),
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
  /** Only threads whose title contains this (Codex's `searchTerm`). */
  search?: string;
  /** Include each thread's cwd (turn-start level only). */
  withCwd?: boolean;
  /** Threads this relay runs a turn on: listed as `active` (a fresh helper sees `notLoaded`). */
  running?: ReadonlySet<string>;
  /** Look for running turns of earlier relay processes on the page's active threads (daemon). */
  earlier?: EarlierScan;
}

/** One page of threads, most recently updated first, at most `limit`. */
export async function listThreads(s: Session, options: ListOptions): Promise<ThreadList> {
  const { limit, cursor, search } = options;
  const page = await s.call("thread/list", {
    limit,
    ...(cursor ? { cursor } : {}),
    sourceKinds: LISTED_SOURCE_KINDS,
    ...(search ? { searchTerm: search } : {}),
  });
  const shown = page.data.slice(0, limit);
  const runs = options.earlier ? await earlierRuns(s, shown, options.earlier) : undefined;
  return {
    status: "ok",
    threads: shown.map((t) => ({
      id: t.id,
      name: t.name,
      status: options.running?.has(t.id) ? "active" : t.status,
      updatedAt: new Date(t.updatedAt * 1000).toISOString(),
      folder: folderOf(t.cwd),
      ...(options.withCwd ? { cwd: t.cwd } : {}),
    })),
    nextCursor: page.nextCursor,
    sources: [...LISTED_SOURCE_KINDS],
    ...(runs ? { runs } : {}),
  };
}

/**
 * The last segment of a working directory (POSIX or Windows separators,
 * trailing ones ignored); the root itself for a root; null without a cwd.
 *
 * @example
 * ```ts
 * folderOf("/home/me/parser/"); // "parser"
 * folderOf("C:\\work\\api"); // "api"
 * ```
 */
export function folderOf(cwd: string | null): string | null {
  if (cwd === null || cwd === "") return null;
  const trimmed = cwd.replace(/[\\/]+$/, "");
  if (trimmed === "" || /^[A-Za-z]:$/.test(trimmed)) return cwd;
  const parts = trimmed.split(/[\\/]/);
  return parts[parts.length - 1];
}
