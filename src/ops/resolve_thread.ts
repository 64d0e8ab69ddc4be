/**
 * Finding a thread by what the caller gave: its id (a UUID, taken as is) or
 * its exact name, when exactly one thread has it.
 * @module
 */

import { asRelayError, RelayError } from "../core/errors.ts";
import type { Connection, Session } from "../connect/connection.ts";
import { LISTED_SOURCE_KINDS, type ThreadListPage } from "../codex/types.ts";
import { canonicalRef, isUuid } from "../reply/inputs.ts";

/** Name lookup bound: pages of `thread/list` searched for an exact name. */
const NAME_PAGES = 20;
const PAGE = 100;
/** Resolves an exact thread name to one thread id, or explains why not. */
async function resolveName(s: Session, name: string): Promise<string | RelayError> {
  const matches: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < NAME_PAGES; page++) {
    const params = {
      limit: PAGE,
      ...(cursor ? { cursor } : {}),
      sourceKinds: LISTED_SOURCE_KINDS,
    };
    const result: ThreadListPage = await s.call("thread/list", params);
    for (const t of result.data) if (t.name === name) matches.push(t.id);
    if (matches.length > 1) break;
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  if (matches.length === 1) return matches[0];
  // Stryker disable next-line EqualityOperator: it follows `matches.length === 1) return`: here the count is 0 or at least 2
  if (matches.length > 1) {
    return new RelayError(
      "ambiguous_name",
      "Several threads have this name. Give the thread's id (codex_list_threads lists them)",
    );
  }
  const scope = cursor ? ` in the ${NAME_PAGES * PAGE} most recent threads` : "";
  return new RelayError(
    "thread_not_found",
    `No thread has exactly this name${scope}. Give the thread's id (codex_list_threads lists them)`,
  );
}

/**
 * The id of the thread `ref` names: `ref` itself (lowercase) when it is a UUID, else the
 * one thread whose name is exactly `ref`. Otherwise (no such thread, several,
 * or the lookup failed) the error to report; nothing was sent to the thread.
 */
export async function resolveThread(s: Session, ref: string): Promise<string | RelayError> {
  if (isUuid(ref)) return canonicalRef(ref);
  try {
    return await resolveName(s, ref);
  } catch (error) {
    const e = asRelayError(error);
    return new RelayError(e.reason, e.message);
  }
}

/**
 * {@linkcode resolveThread} for tools that need the UUID before their own
 * operation (following a turn the relay runs, interrupting it): a UUID costs
 * nothing; a name costs one operation of `thread/list` pages.
 */
export async function resolveRef(
  connection: Connection,
  ref: string,
  signal: AbortSignal,
): Promise<string | RelayError> {
  if (isUuid(ref)) return canonicalRef(ref);
  try {
    return await connection.operation((s) => resolveThread(s, ref), { signal, label: "resolve" });
  } catch (error) {
    const e = asRelayError(error);
    return new RelayError(e.reason, e.message);
  }
}
