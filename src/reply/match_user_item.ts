/**
 * Finds the user message a `clientMessageId` names in one search page.
 * @module
 */

import type { ItemEntry, UserMessageItem } from "../codex/types.ts";
import { parseItem } from "../codex/validate.ts";
import { RelayError } from "../core/errors.ts";

/** Items of one search page: `thread/items/list {sortDirection: "desc", limit: 100}`. */
export const SEARCH_PAGE_LIMIT = 100;

/** What {@linkcode matchUserItem} found in one search page. */
export type MatchOutcome =
  | { kind: "no_match" }
  | { kind: "observed"; turnId: string; itemId: string }
  | { kind: "ambiguous"; count: number };

/**
 * Looks for the userMessage items whose `clientId` equals `clientMessageId`
 * exactly, in one search page (the newest {@linkcode SEARCH_PAGE_LIMIT} items).
 *
 * Only userMessage items are parsed; every other item is left untouched, so an
 * odd item of another type fails nothing. A userMessage whose `clientId` or
 * `id` is malformed throws `RelayError("protocol_error")`.
 *
 * @param entries One page of `thread/items/list` entries, in any order.
 * @param clientMessageId The id given as `clientUserMessageId` when queueing.
 * @returns `no_match` (none), `observed` (exactly one) or `ambiguous` (several).
 */
export function matchUserItem(
  entries: readonly ItemEntry[],
  clientMessageId: string,
): MatchOutcome {
  const matches: { turnId: string; itemId: string }[] = [];
  for (const entry of entries) {
    if (entry.item?.type !== "userMessage") continue;
    const user = parseItem(entry.item) as UserMessageItem;
    if (user.clientId !== clientMessageId) continue;
    if (typeof entry.turnId !== "string") {
      throw new RelayError("protocol_error", "Unexpected app-server result: entry.turnId");
    }
    matches.push({ turnId: entry.turnId, itemId: user.id });
  }
  if (matches.length === 0) return { kind: "no_match" };
  if (matches.length > 1) return { kind: "ambiguous", count: matches.length };
  return { kind: "observed", turnId: matches[0].turnId, itemId: matches[0].itemId };
}
