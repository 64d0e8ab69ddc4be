/**
 * Listing threads: ids, names, statuses, folders and update times, never
 * previews or message text; the user's interactive and scripted threads
 * (`LISTED_SOURCE_KINDS`), optionally those whose title holds a search term.
 * @module
 */

import { LISTED_SOURCE_KINDS } from "../codex/types.ts";
import type { Session } from "../connect/connection.ts";
import type { ThreadList } from "../reply/schemas.ts";
import { otherRelayRuns, type OtherRelayScan } from "./listed_runs.ts";

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
  /** Look for running turns of other relay processes on the page's active threads (daemon). */
  otherRelays?: OtherRelayScan;
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
  const runs = options.otherRelays
    ? await otherRelayRuns(s, shown, options.otherRelays)
    : undefined;
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
 * import assert from "assert";
 * assert.equal(folderOf("/home/me/parser/"), "parser");
 * assert.equal(folderOf("C:\\work\\api"), "api");
 * ```
 */
export function folderOf(cwd: string | null): string | null {
  if (cwd === null || cwd === "") return null;
  const trimmed = cwd.replace(/[\\/]+$/, "");
  if (trimmed === "" || /^[A-Za-z]:$/.test(trimmed)) return cwd;
  const parts = trimmed.split(/[\\/]/);
  return parts[parts.length - 1];
}
