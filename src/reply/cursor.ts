/**
 * Caller-owned continuation cursors of `codex_read_reply`.
 *
 * A cursor is versioned position data, base64url (no padding) over canonical
 * JSON, scoped to `(threadId, clientMessageId, kind)`. It is forgeable and is
 * not a credential: the decoder guarantees shape and scope only, and the I/O
 * layer re-reads and verifies the user item before projecting any text.
 * @module
 */

import { RelayError } from "../core/errors.ts";
import { decodeBase64Url, encodeBase64Url } from "./_base64url.ts";

/** The cursor format version. */
export const CURSOR_VERSION = 1;
/** Longest id (thread, message, item, turn) a cursor carries, in UTF-16 units. */
export const MAX_CURSOR_ID_CHARS = 200;
/** Longest app-server cursor a search cursor carries, in UTF-16 units. */
export const MAX_APP_CURSOR_CHARS = 4096;
/** Longest cursor text accepted or produced. */
export const MAX_CURSOR_TEXT_CHARS = 8192;

/** `reply`: more replies of the matched turn; `search`: older items to search. */
export type CursorKind = "reply" | "search";

/** What a cursor is scoped to; a cursor of another scope is `invalid_cursor`. */
export interface CursorScope {
  /** The thread of the request. */
  threadId: string;
  /** The message id of the request. */
  clientMessageId: string;
  /** What the cursor continues. */
  kind: CursorKind;
}

/** Continues the replies of a matched turn after `lastItemId`. */
export interface ReplyCursorData {
  /** Format version. */
  v: 1;
  /** Discriminant. */
  kind: "reply";
  /** Scope: the thread. */
  threadId: string;
  /** Scope: the message id. */
  clientMessageId: string;
  /** The matched userMessage item, re-read and verified before any text. */
  userItemId: string;
  /** Its turn. */
  turnId: string;
  /** The last item consumed; null to start from the beginning of the turn. */
  lastItemId: string | null;
}

/** Continues the search with older items. */
export interface SearchCursorData {
  /** Format version. */
  v: 1;
  /** Discriminant. */
  kind: "search";
  /** Scope: the thread. */
  threadId: string;
  /** Scope: the message id. */
  clientMessageId: string;
  /** The app-server's opaque `nextCursor` of the descending search page. */
  appCursor: string;
}

/** The data of a cursor. */
export type CursorData = ReplyCursorData | SearchCursorData;

/**
 * Encodes cursor data. Decoding the text with the data's own scope returns
 * equal data.
 *
 * @throws {RelayError} `protocol_error` when a field is not a sane id (empty,
 * too long, control characters, lone surrogates), the app-server cursor is not
 * sane, or the text would exceed {@linkcode MAX_CURSOR_TEXT_CHARS}: these
 * values come from the app-server.
 */
export function encodeCursor(data: CursorData): string {
  const canonical = canonicalize(data);
  const text = canonical && encodeBase64Url(new TextEncoder().encode(JSON.stringify(canonical)));
  if (!text || text.length > MAX_CURSOR_TEXT_CHARS) {
    throw new RelayError("protocol_error", "The continuation position cannot be encoded");
  }
  return text;
}

/**
 * Decodes a cursor and checks its scope.
 *
 * Accepts exactly the texts {@linkcode encodeCursor} produces; anything else,
 * whatever the input, throws `RelayError("invalid_cursor")` and nothing else.
 *
 * @param text The cursor as the client sent it.
 * @param expected The scope of the request; the cursor's must equal it.
 * @throws {RelayError} `invalid_cursor`.
 */
export function decodeCursor<K extends CursorKind>(
  text: string,
  expected: CursorScope & { kind: K },
): Extract<CursorData, { kind: K }> {
  let data: CursorData | null;
  try {
    data = parseCursor(text, expected);
  } catch {
    data = null;
  }
  if (data === null) {
    throw new RelayError("invalid_cursor", "The cursor is not valid for this thread and message");
  }
  return data as Extract<CursorData, { kind: K }>;
}

function parseCursor(text: unknown, expected: CursorScope): CursorData | null {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a text that is not a string never equals the re-encoded cursor (a string) and most throw first (no length, not iterable); the empty text decodes to no bytes and JSON.parse('') throws; decodeCursor turns every throw into invalid_cursor
  if (typeof text !== "string" || text.length === 0) return null;
  if (text.length > MAX_CURSOR_TEXT_CHARS) return null;
  const bytes = decodeBase64Url(text);
  // Stryker disable next-line ConditionalExpression: TextDecoder's decode(null) throws a TypeError: decodeCursor makes it invalid_cursor
  if (bytes === null) return null;
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: a text is accepted only when it equals the encoding of the data it parsed to, which is UTF-8 without a BOM: invalid UTF-8 (read as U+FFFD) or a stripped BOM re-encodes to another text, refused
  const json = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  const data = canonicalize(JSON.parse(json));
  // Stryker disable next-line ConditionalExpression: data.threadId then throws a TypeError: decodeCursor makes it invalid_cursor
  if (data === null) return null;
  if (
    data.threadId !== expected.threadId || data.clientMessageId !== expected.clientMessageId ||
    data.kind !== expected.kind
  ) {
    return null;
  }
  // One text per position: reject other spellings of the same data.
  const again = encodeBase64Url(new TextEncoder().encode(JSON.stringify(data)));
  return again === text ? data : null;
}

const REPLY_KEYS = [
  "v",
  "kind",
  "threadId",
  "clientMessageId",
  "userItemId",
  "turnId",
  "lastItemId",
];
const SEARCH_KEYS = ["v", "kind", "threadId", "clientMessageId", "appCursor"];

/** Validates the shape and returns a copy with the fields in canonical order, or null. */
function canonicalize(value: unknown): CursorData | null {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a number, string, boolean or array from JSON.parse has no own v of 1 and fails the field checks; null throws at o.v, which decodeCursor turns into invalid_cursor; encodeCursor's callers pass object literals
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  // JSON.parse makes plain objects only ("__proto__" is an own key there: an extra one), and
  // encodeCursor's callers pass literals; the copy below takes own fields only.
  const o = value as Record<string, unknown>;
  if (o.v !== CURSOR_VERSION || !isId(o.threadId) || !isId(o.clientMessageId)) return null;
  const keys = Object.keys(o);
  if (o.kind === "reply") {
    if (!sameKeys(keys, REPLY_KEYS) || !isId(o.userItemId) || !isId(o.turnId)) return null;
    if (o.lastItemId !== null && !isId(o.lastItemId)) return null;
    return {
      v: CURSOR_VERSION,
      kind: "reply",
      threadId: o.threadId,
      clientMessageId: o.clientMessageId,
      userItemId: o.userItemId,
      turnId: o.turnId,
      lastItemId: o.lastItemId as string | null,
    };
  }
  // Stryker disable next-line ConditionalExpression: another kind than reply would be copied as search: the text differs from that data's encoding, refused; encodeCursor's callers pass reply or search
  if (o.kind === "search") {
    if (!sameKeys(keys, SEARCH_KEYS) || !isSane(o.appCursor, MAX_APP_CURSOR_CHARS)) return null;
    return {
      v: CURSOR_VERSION,
      kind: "search",
      threadId: o.threadId,
      clientMessageId: o.clientMessageId,
      appCursor: o.appCursor,
    };
  }
  return null;
}

function sameKeys(keys: string[], wanted: readonly string[]): boolean {
  // Stryker disable next-line MethodExpression: every wanted key's value is checked (v, kind, the ids, lastItemId null or an id, appCursor): with as many keys as wanted, a missing one is undefined there, refused
  return keys.length === wanted.length && wanted.every((k) => keys.includes(k));
}

function isId(value: unknown): value is string {
  return isSane(value, MAX_CURSOR_ID_CHARS);
}

/** Non-empty, bounded, no control characters (C0, DEL, C1), no lone surrogates. */
const SANE = /^[^\p{Cc}\p{Cs}]+$/u;

function isSane(value: unknown, max: number): value is string {
  return typeof value === "string" && value.length <= max && SANE.test(value);
}
