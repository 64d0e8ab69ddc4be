/**
 * `codex_read_reply` as one operation on a {@linkcode Session}: find
 * the user message (or verify the cursor's), read the matched turn's status,
 * project its final answers. The projector does the judging; this module only
 * decides which RPCs to send, in which order, and turns failures into results.
 * @module
 */

import type { ItemEntry, TurnsPage, UserMessageItem } from "../codex/types.ts";
import { parseItem } from "../codex/validate.ts";
import { asRelayError, RelayError } from "../core/errors.ts";
import type { Session } from "../connect/connection.ts";
import {
  decodeCursor,
  encodeCursor,
  type ReplyCursorData,
  type SearchCursorData,
} from "../reply/cursor.ts";
import { type MatchOutcome, matchUserItem, SEARCH_PAGE_LIMIT } from "../reply/match_user_item.ts";
import {
  type ProjectionState,
  projectReplies,
  REPLY_BUDGET_BYTES,
} from "../reply/project_replies.ts";
import { buildReadResult, unavailableRead } from "../reply/read_result.ts";
import type { ObservedTurnStatus, ReadReplyResult, Reply } from "../reply/schemas.ts";
import { isTerminal, observedTurnStatus, TURN_STATUS_WINDOW } from "../reply/turn_status.ts";
import { lookInQueue } from "./queue_look.ts";

/** Items per page of the matched turn (`thread/items/list {turnId}`; the app-server's maximum). */
export const TURN_PAGE_LIMIT = 100;
/** Pages of the matched turn read by one call; `nextCursor` continues after them. */
export const MAX_TURN_PAGES = 20;

/** What `codex_read_reply` is asked. */
export interface ReadReplyInput {
  /** The thread (a UUID). */
  threadId: string;
  /** The `clientMessageId` of the queue receipt. */
  clientMessageId: string;
  /** A `nextCursor` (more replies) or `searchCursor` (older items) of an earlier result. */
  cursor?: string;
  /** With a reply cursor: rescan the matched turn from its start (the cursor is still verified). */
  refresh?: boolean;
}

type Start =
  | { kind: "fresh" }
  | { kind: "reply"; cursor: ReplyCursorData }
  | { kind: "search"; cursor: SearchCursorData };

/**
 * Runs one `codex_read_reply` on `session` (every RPC on its one helper,
 * within its budget) and returns the result. Never throws for what the
 * app-server or the caller did: failures are `unavailable` results with a
 * reason, and carry no text.
 *
 * RPCs, in order:
 * - no cursor, or a search cursor: the search page `thread/items/list
 *   {threadId, sortDirection: "desc", limit: 100, cursor?}`;
 * - no cursor and no match: the thread's queue (`thread/queue/list`, and the
 *   newest turn's status when the queue holds it: `queued`); when the queue
 *   does not, the search page once more (Codex may have taken the message
 *   between the two reads), and `not_found` when that page is the whole
 *   thread and still has no match;
 * - a reply cursor: `thread/items/read {threadId, turnId, itemIds: [userItemId]}`,
 *   verified (item id, turn, `clientId`) before anything else, then the search
 *   page: another message with the same `clientMessageId` makes it `ambiguous`;
 * - when matched: `thread/turns/list {threadId, limit: 50, sortDirection: "desc",
 *   itemsView: "notLoaded"}` (status read before the items, so a terminal
 *   status means every item of the turn was stored), then the turn's pages
 *   `thread/items/list {threadId, turnId, sortDirection: "asc", limit: 100,
 *   cursor?: {type: "item", itemId}}`.
 */
export async function readReply(
  session: Session,
  input: ReadReplyInput,
): Promise<ReadReplyResult> {
  let start: Start;
  try {
    start = decodeStart(input);
  } catch (error) {
    return unavailableRead(input, asRelayError(error).reason);
  }
  try {
    return await read(session, input, start);
  } catch (error) {
    let failure = asRelayError(error);
    if (failure.reason === "legacy_history") failure = await tellLegacy(session, input, failure);
    return unavailableRead(input, failure.reason);
  }
}

/** Which kind of cursor the caller gave, if any; `invalid_cursor` when it is neither. */
function decodeStart(input: ReadReplyInput): Start {
  // Stryker disable next-line ObjectLiteral,StringLiteral: read() asks only whether the start is "reply" or "search": any other start reads afresh
  if (input.cursor === undefined) return { kind: "fresh" };
  const scope = { threadId: input.threadId, clientMessageId: input.clientMessageId };
  try {
    return { kind: "reply", cursor: decodeCursor(input.cursor, { ...scope, kind: "reply" }) };
  } catch {
    // Not a reply cursor of this scope; maybe a search cursor.
  }
  return { kind: "search", cursor: decodeCursor(input.cursor, { ...scope, kind: "search" }) };
}

/** One read; `notQueued`: the queue was looked at and does not hold the message. */
async function read(
  session: Session,
  input: ReadReplyInput,
  start: Start,
  notQueued = false,
): Promise<ReadReplyResult> {
  const { threadId, clientMessageId } = input;
  const scope = { threadId, clientMessageId };
  let match: Extract<MatchOutcome, { kind: "observed" }>;
  let from: string | null = null;
  if (start.kind === "reply") {
    await verifyUserItem(session, input, start.cursor);
    if (await laterDuplicate(session, input, start.cursor)) {
      return buildReadResult({ ...scope, match: { kind: "ambiguous", count: 2 } });
    }
    match = { kind: "observed", turnId: start.cursor.turnId, itemId: start.cursor.userItemId };
    from = input.refresh ? null : start.cursor.lastItemId;
  } else {
    const appCursor = start.kind === "search" ? start.cursor.appCursor : null;
    const page = await session.call("thread/items/list", {
      threadId,
      sortDirection: "desc",
      limit: SEARCH_PAGE_LIMIT,
      ...(appCursor === null ? {} : { cursor: appCursor }),
    });
    const found = matchUserItem(page.data, clientMessageId);
    if (found.kind === "no_match") {
      const searchCursor = page.nextCursor === null
        ? null
        : encodeCursor({ v: 1, kind: "search", ...scope, appCursor: page.nextCursor });
      if (start.kind === "fresh" && !notQueued) {
        const look = await lookInQueue(session, threadId, clientMessageId);
        if (look.kind === "queued") return buildReadResult({ ...scope, match: look });
        // Taken from the queue between the two reads? Search the items once more.
        return await read(session, input, start, true);
      }
      if (notQueued && searchCursor === null) {
        return buildReadResult({ ...scope, match: { kind: "not_found" } });
      }
      return buildReadResult({ ...scope, match: found, searchCursor });
    }
    if (found.kind === "ambiguous") return buildReadResult({ ...scope, match: found });
    match = found;
  }
  // Both reads at once (one round trip less); a failed status read still fails the read first.
  const [status, projection] = await Promise.allSettled([
    turnStatusOf(session, threadId, match.turnId),
    projectTurn(session, threadId, match.turnId, from),
  ]);
  if (status.status === "rejected") throw status.reason;
  if (projection.status === "rejected") throw projection.reason;
  const turnStatus = status.value;
  const projected = projection.value;
  const more = projected.more || !isTerminal(turnStatus);
  const nextCursor = more
    ? encodeCursor({
      v: 1,
      kind: "reply",
      ...scope,
      userItemId: match.itemId,
      turnId: match.turnId,
      lastItemId: projected.lastConsumedItemId,
    })
    : null;
  return buildReadResult({
    ...scope,
    match,
    turnStatus,
    replies: projected.replies,
    nextCursor,
  });
}

/**
 * Re-reads the cursor's user item and checks that it is still the caller's
 * message: the same item id, in the cursor's turn, a userMessage whose
 * `clientId` is the request's `clientMessageId`. Anything else is
 * `invalid_cursor`.
 */
async function verifyUserItem(
  session: Session,
  input: ReadReplyInput,
  cursor: ReplyCursorData,
): Promise<void> {
  const page = await session.call("thread/items/read", {
    threadId: input.threadId,
    turnId: cursor.turnId,
    itemIds: [cursor.userItemId],
  });
  const entry: ItemEntry | undefined = page.data.length === 1 ? page.data[0] : undefined;
  if (
    entry === undefined || entry.turnId !== cursor.turnId || entry.item.id !== cursor.userItemId ||
    entry.item.type !== "userMessage" ||
    (parseItem(entry.item) as UserMessageItem).clientId !== input.clientMessageId
  ) {
    throw new RelayError(
      "invalid_cursor",
      // Stryker disable next-line StringLiteral: readReply() never throws: a failed read is an unavailable result that carries the error's reason, never its message
      "The cursor's user message is no longer this thread's message with this id",
    );
  }
}

/**
 * Whether the thread now holds another user message with the cursor's
 * `clientMessageId`: the search page a fresh read would look at (the newest
 * 100 items) has several matches, or one that is not the cursor's item (the
 * cursor's is then older than the page). A fresh read would say `ambiguous`
 * (or match the other message), so the continuation must not return text.
 */
async function laterDuplicate(
  session: Session,
  input: ReadReplyInput,
  cursor: ReplyCursorData,
): Promise<boolean> {
  const page = await session.call("thread/items/list", {
    threadId: input.threadId,
    sortDirection: "desc",
    limit: SEARCH_PAGE_LIMIT,
  });
  const found = matchUserItem(page.data, input.clientMessageId);
  return found.kind === "ambiguous" ||
    (found.kind === "observed" && found.itemId !== cursor.userItemId);
}

/**
 * The read of a message whose turn is known but has no user message of it (a
 * compaction's, by the turn its run followed): that turn's status as Codex
 * stores it, no replies.
 *
 * @example
 * ```ts ignore
 * const read = await readTurn(session, { threadId, clientMessageId }, turnId);
 * ```
 */
export async function readTurn(
  session: Session,
  scope: { threadId: string; clientMessageId: string },
  turnId: string,
): Promise<ReadReplyResult> {
  const turnStatus = await turnStatusOf(session, scope.threadId, turnId);
  // Stryker disable next-line StringLiteral: no user item, and buildReadResult reads none's id
  return buildReadResult({ ...scope, match: { kind: "observed", turnId, itemId: "" }, turnStatus });
}

/**
 * The matched turn's status among the newest 50 turn summaries, read with
 * the cheapest items view; `summary` only if the app-server refuses that one.
 * An answered refusal of both is `unverified`; a dead helper, a timeout or a
 * malformed page fail the read.
 */
async function turnStatusOf(
  session: Session,
  threadId: string,
  turnId: string,
): Promise<ObservedTurnStatus> {
  const params = { threadId, limit: TURN_STATUS_WINDOW, sortDirection: "desc" as const };
  let page: TurnsPage;
  try {
    page = await session.call("thread/turns/list", { ...params, itemsView: "notLoaded" });
  } catch (error) {
    if (!isAnsweredRefusal(error)) throw error;
    try {
      page = await session.call("thread/turns/list", { ...params, itemsView: "summary" });
    } catch (again) {
      if (!isAnsweredRefusal(again)) throw again;
      return "unverified";
    }
  }
  return observedTurnStatus(page.data, turnId);
}

/** An error the app-server answered (the helper lives on) that is not about the thread itself. */
function isAnsweredRefusal(error: unknown): boolean {
  const e = asRelayError(error);
  return e.rpcCode !== undefined && e.reason !== "thread_not_found" &&
    e.reason !== "legacy_history" && e.reason !== "busy";
}

interface TurnProjection {
  replies: Reply[];
  lastConsumedItemId: string | null;
  /** Whether items may follow `lastConsumedItemId` that this call did not consume. */
  more: boolean;
}

/** Projects the matched turn's final answers from the item after `from` (or its start). */
async function projectTurn(
  session: Session,
  threadId: string,
  turnId: string,
  from: string | null,
): Promise<TurnProjection> {
  let state: ProjectionState = {
    lastConsumedItemId: from,
    budgetLeft: REPLY_BUDGET_BYTES,
    stopped: false,
  };
  const replies: Reply[] = [];
  for (let pages = 0; pages < MAX_TURN_PAGES; pages++) {
    const anchor = state.lastConsumedItemId;
    const page = await session.call("thread/items/list", {
      threadId,
      turnId,
      sortDirection: "asc",
      limit: TURN_PAGE_LIMIT,
      ...(anchor === null ? {} : { cursor: { type: "item", itemId: anchor } }),
    });
    const projected = projectReplies(page.data, turnId, state);
    replies.push(...projected.replies);
    state = projected;
    if (state.stopped) return { replies, lastConsumedItemId: state.lastConsumedItemId, more: true };
    if (page.nextCursor === null) {
      return { replies, lastConsumedItemId: state.lastConsumedItemId, more: false };
    }
    if (state.lastConsumedItemId === anchor) {
      // Stryker disable next-line StringLiteral: readReply() never throws: a failed read is an unavailable result that carries the error's reason, never its message
      throw new RelayError("protocol_error", "The app-server's page of the turn did not advance");
    }
  }
  return { replies, lastConsumedItemId: state.lastConsumedItemId, more: true };
}

/**
 * `thread/items/*` answer -32601 both for a thread in legacy history mode and
 * for a thread that does not exist; `thread/turns/list` tells them apart (it
 * reads legacy threads and answers "thread not loaded" for unknown ones).
 */
async function tellLegacy(
  session: Session,
  input: ReadReplyInput,
  failure: RelayError,
): Promise<RelayError> {
  try {
    await session.call("thread/turns/list", {
      threadId: input.threadId,
      limit: 1,
      sortDirection: "desc",
      itemsView: "notLoaded",
    });
    return failure;
  } catch (error) {
    const e = asRelayError(error);
    // Answered otherwise: still the legacy answer; not answered: that failure.
    return e.reason === "thread_not_found" || e.rpcCode === undefined ? e : failure;
  }
}
