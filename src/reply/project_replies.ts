/**
 * Projects the final answers of a matched turn into replies, under one byte budget.
 * @module
 */

import type { AgentMessageItem, ItemEntry } from "../codex/types.ts";
import { parseItem } from "../codex/validate.ts";
import { RelayError } from "../core/errors.ts";
import type { Reply } from "./schemas.ts";
import { moderationVerdict } from "./moderation.ts";
import { utf8Truncate } from "./utf8_truncate.ts";

/** UTF-8 bytes of reply text per result page, shared by all replies of the page. */
export const REPLY_BUDGET_BYTES = 16384;

/**
 * The running state of a projection over several `thread/items/list` pages of
 * one turn. Start with `{lastConsumedItemId: null, budgetLeft: REPLY_BUDGET_BYTES,
 * stopped: false}` (or the continuation's last item id), then pass each result
 * back in for the next page.
 */
export interface ProjectionState {
  /**
   * The id of the last item consumed (projected or skipped), or null when none
   * has been. The next page is `thread/items/list {turnId, cursor: {type: "item",
   * itemId}}` with this id: item anchors are exclusive, so it starts with the
   * NEXT item (a truncated reply is never continued).
   */
  lastConsumedItemId: string | null;
  /** UTF-8 bytes still available to reply text in this result page. */
  budgetLeft: number;
  /**
   * True once the budget is spent (a reply was truncated, or the budget hit
   * exactly 0): stop reading pages; more items may follow `lastConsumedItemId`.
   * False means every given entry was consumed: read the app-server's next
   * page, if it has one.
   */
  stopped: boolean;
}

/** The result of projecting one page: its replies and the new running state. */
export interface ProjectionPage extends ProjectionState {
  /** The final answers projected from this page, in stored order. */
  replies: Reply[];
}

const FRESH: Readonly<ProjectionState> = Object.freeze({
  lastConsumedItemId: null,
  budgetLeft: REPLY_BUDGET_BYTES,
  stopped: false,
});

/**
 * Projects one page of the matched turn's items (stored, ascending order).
 *
 * Only agentMessage items with `phase: "final_answer"` become replies, all of
 * them (association `same_turn_not_exclusive`: a final that answers a later
 * input of the same turn is included). A final answer whose `moderation`
 * withholds its text ({@linkcode moderationVerdict}) becomes a
 * moderated reply (`moderatedReplySchema`): no text, no budget spent. User messages, reasoning, commentary,
 * partial answers, agentMessages with a null/absent phase, command and tool
 * items and any other type are consumed without output.
 *
 * Every agentMessage of the page is validated before anything is projected: a
 * malformed phase or non-string text throws `RelayError("protocol_error")`, as
 * does an entry of another turn or a consumed item without a string id (it
 * could not anchor a continuation). The caller must then drop every reply of
 * the operation, including those of earlier pages.
 *
 * The budget is shared by the replies of all pages of one result: a reply that
 * does not fit is cut on a character boundary (`truncated: true`) and the
 * projection stops. A stopped state consumes nothing more.
 *
 * @param entries Entries of `thread/items/list {turnId}`, ascending.
 * @param turnId The matched turn; every entry must belong to it.
 * @param state The state returned for the previous page, or a fresh one.
 * @throws {RangeError} when `state.budgetLeft` is not a non-negative integer.
 */
export function projectReplies(
  entries: readonly ItemEntry[],
  turnId: string,
  state: ProjectionState = FRESH,
): ProjectionPage {
  const { budgetLeft: budget } = state;
  if (!Number.isSafeInteger(budget) || budget < 0) {
    throw new RangeError("budgetLeft must be a non-negative integer");
  }
  const agents = validatePage(entries, turnId);
  if (state.stopped || budget === 0) {
    return {
      replies: [],
      lastConsumedItemId: state.lastConsumedItemId,
      budgetLeft: budget,
      stopped: true,
    };
  }
  const replies: Reply[] = [];
  let budgetLeft = budget;
  let lastConsumedItemId = state.lastConsumedItemId;
  for (let i = 0; i < entries.length; i++) {
    const agent = agents[i];
    const id = agent ? agent.id : itemId(entries[i]);
    lastConsumedItemId = id;
    if (agent?.phase !== "final_answer") continue;
    const verdict = moderationVerdict(agent.moderation);
    if (!verdict.disclose) {
      const { replacement, blockReason } = verdict;
      replies.push({
        itemId: id,
        moderated: true,
        ...(replacement === undefined ? {} : { replacement }),
        ...(blockReason === undefined ? {} : { blockReason }),
      });
      continue;
    }
    const cut = utf8Truncate(agent.text, budgetLeft);
    replies.push({ itemId: id, text: cut.text.toWellFormed(), truncated: cut.truncated });
    budgetLeft -= cut.bytes;
    if (cut.truncated || budgetLeft === 0) {
      return { replies, lastConsumedItemId, budgetLeft, stopped: true };
    }
  }
  return { replies, lastConsumedItemId, budgetLeft, stopped: false };
}

/** Checks the turn of every entry and parses every agentMessage; index-aligned. */
function validatePage(
  entries: readonly ItemEntry[],
  turnId: string,
): (AgentMessageItem | undefined)[] {
  return entries.map((entry) => {
    if (entry.turnId !== turnId) fail("an item of another turn in the matched turn's page");
    if (entry.item?.type !== "agentMessage") return undefined;
    return parseItem(entry.item) as AgentMessageItem;
  });
}

function itemId(entry: ItemEntry): string {
  const id = entry.item?.id;
  if (typeof id !== "string") fail("item.id is not a string");
  return id;
}

function fail(what: string): never {
  throw new RelayError("protocol_error", `Unexpected app-server result: ${what}`);
}
