/**
 * The app-server notifications the relay follows, parsed into typed events.
 * Unknown notifications and malformed fields yield nothing (Codex adds
 * notifications and fields in minor releases; a turn runtime must not fail
 * on one it does not know).
 * @module
 */

import type { TurnError, TurnStatus } from "./types.ts";
import { parseRateLimits, type RateLimits } from "./rate_limits.ts";
import { type ItemActivity, parseItemActivity } from "./validate.ts";

/** The item fields a runtime follows. */
export interface ItemRef {
  type: string | undefined;
  id: string | undefined;
  /** A userMessage's `clientId`. */
  clientId: unknown;
  /** What it shows Codex doing (kinds and names, no content). */
  activity: ItemActivity;
  /** A completed `fileChange` item's files (none for any other item). */
  changes: FileChangeRef[];
}

/** One file of a completed `fileChange` item: its absolute path, how (a move: delete + add). */
export interface FileChangeRef {
  path: string;
  kind: "add" | "delete" | "update";
}

/** A notification the relay follows. */
export type TurnEvent =
  | {
    kind: "turnStarted";
    threadId?: string;
    turnId: string | null;
    /** The turn it runs inside (a review's inner turn R' names R); its own id otherwise. */
    rootTurnId: string | null;
  }
  | {
    kind: "item";
    completed: boolean;
    threadId?: string;
    turnId: string | null;
    item: ItemRef;
  }
  | {
    kind: "turnCompleted";
    threadId?: string;
    turnId: string | null;
    status: TurnStatus | string | undefined;
    error: TurnError | null | undefined;
  }
  | {
    /**
     * `error`: a request to the model failed. `willRetry` while Codex retries it
     * (`Reconnecting... 1/5`, `Reconnecting... waiting for network`); false when
     * the turn fails with it (`turn/completed` follows).
     */
    kind: "streamError";
    threadId?: string;
    turnId: string | null;
    willRetry: boolean;
    message: string | undefined;
    /** `error.additionalDetails`: what failed (e.g. `Connection failed: error sending request`). */
    details: string | undefined;
  }
  | { kind: "requestResolved"; threadId?: string; requestId: unknown }
  /** `turn/diff/updated`: the turn's unified diff so far (each replaces the last). */
  | { kind: "turnDiff"; threadId?: string; turnId: string | null; diff: string }
  | { kind: "tokenUsage"; threadId?: string; turnId: string | null; usage: TokenUsage }
  /** `account/rateLimits/updated` (the account's, no thread): sent during turns. */
  | { kind: "rateLimits"; threadId?: undefined; limits: RateLimits }
  | { kind: "threadStatus"; threadId?: string; status: string | undefined };

/** Token counts of `thread/tokenUsage/updated` (`last` or `total`); a count Codex left out is 0. */
export interface TokenBreakdown {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningOutputTokens: number;
  totalTokens: number;
}

/** `thread/tokenUsage/updated`'s `tokenUsage` (transcripts 01, 26): one per model request. */
export interface TokenUsage {
  /** The thread's running total. */
  total: TokenBreakdown;
  /** The last model request's counts. */
  last: TokenBreakdown;
  /** The model's context window, when Codex knows it. */
  modelContextWindow: number | null;
}

type Obj = Record<string, unknown>;

const asObj = (v: unknown): Obj | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? v as Obj : undefined;
const asStr = (v: unknown): string | undefined => typeof v === "string" ? v : undefined;

/** Parses a notification into an event, or undefined when the relay does not follow it. */
export function parseTurnEvent(method: string, raw: unknown): TurnEvent | undefined {
  const params = asObj(raw) ?? {};
  const threadId = params.threadId === undefined ? undefined : asStr(params.threadId) ?? "";
  const scope = threadId === undefined ? {} : { threadId };
  switch (method) {
    case "turn/started":
      return {
        kind: "turnStarted",
        ...scope,
        turnId: asStr(asObj(params.turn)?.id) ?? null,
        rootTurnId: asStr(asObj(params.turn)?.rootTurnId) ?? null,
      };
    case "item/started":
    case "item/completed": {
      const item = asObj(params.item);
      if (!item) return undefined;
      return {
        kind: "item",
        completed: method === "item/completed",
        ...scope,
        turnId: asStr(params.turnId) ?? null,
        item: {
          type: asStr(item.type),
          id: asStr(item.id),
          clientId: item.clientId,
          activity: parseItemActivity(item),
          changes: method === "item/completed" ? parseFileChanges(item) : [],
        },
      };
    }
    case "turn/diff/updated": {
      const diff = asStr(params.diff);
      if (diff === undefined) return undefined;
      return { kind: "turnDiff", ...scope, turnId: asStr(params.turnId) ?? null, diff };
    }
    case "turn/completed": {
      const turn = asObj(params.turn);
      return {
        kind: "turnCompleted",
        ...scope,
        turnId: asStr(turn?.id) ?? null,
        status: asStr(turn?.status),
        error: turn?.error as TurnError | null | undefined,
      };
    }
    case "error": {
      const error = asObj(params.error);
      return {
        kind: "streamError",
        ...scope,
        turnId: asStr(params.turnId) ?? null,
        willRetry: params.willRetry === true,
        message: asStr(error?.message),
        details: asStr(error?.additionalDetails),
      };
    }
    case "serverRequest/resolved":
      return { kind: "requestResolved", ...scope, requestId: params.requestId };
    case "thread/tokenUsage/updated": {
      const usage = parseTokenUsage(params.tokenUsage);
      if (!usage) return undefined;
      return { kind: "tokenUsage", ...scope, turnId: asStr(params.turnId) ?? null, usage };
    }
    case "account/rateLimits/updated":
      return { kind: "rateLimits", limits: parseRateLimits(params) };
    case "thread/status/changed":
      return { kind: "threadStatus", ...scope, status: asStr(asObj(params.status)?.type) };
    default:
      return undefined;
  }
}

/**
 * The files of a completed `fileChange` item (`changes: [{path, kind}]`,
 * paths absolute; a move is an update with `move_path`: the old path
 * deleted, the new one added). Any other item, or one that did not
 * complete, has none; a malformed change is skipped.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const changes = parseFileChanges({ type: "fileChange", status: "completed",
 *   changes: [{ path: "/r/x", kind: { type: "add" } }] });
 * assert.deepEqual(changes, [{ path: "/r/x", kind: "add" }]);
 * ```
 */
export function parseFileChanges(raw: unknown): FileChangeRef[] {
  const item = asObj(raw);
  if (item?.type !== "fileChange" || item.status !== "completed") return [];
  if (!Array.isArray(item.changes)) return [];
  const out: FileChangeRef[] = [];
  for (const change of item.changes) {
    const path = asStr(asObj(change)?.path);
    const kind = asObj(asObj(change)?.kind) ?? {};
    const type = asStr(kind.type);
    if (path === undefined || type === undefined) continue;
    const to = asStr(kind.move_path);
    if (to !== undefined && to !== "") {
      out.push({ path, kind: "delete" }, { path: to, kind: "add" });
    } else if (type === "add" || type === "delete" || type === "update") {
      out.push({ path, kind: type });
    }
  }
  return out;
}

const count = (v: unknown): number => typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0;

function breakdown(v: unknown): TokenBreakdown | undefined {
  const o = asObj(v);
  if (!o) return undefined;
  return {
    inputTokens: count(o.inputTokens),
    cachedInputTokens: count(o.cachedInputTokens),
    outputTokens: count(o.outputTokens),
    reasoningOutputTokens: count(o.reasoningOutputTokens),
    totalTokens: count(o.totalTokens),
  };
}

/**
 * Parses `thread/tokenUsage/updated`'s `tokenUsage`, or undefined when it has
 * no `total` or `last` object.
 *
 * @example
 * ```ts
 * const zero = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0, totalTokens: 0 };
 * import assert from "assert";
 * const usage = parseTokenUsage({ total: zero, last: zero, modelContextWindow: 258400 });
 * assert.equal(usage?.modelContextWindow, 258400);
 * ```
 */
export function parseTokenUsage(raw: unknown): TokenUsage | undefined {
  const o = asObj(raw);
  const total = breakdown(o?.total);
  const last = breakdown(o?.last);
  if (!o || !total || !last) return undefined;
  const window = o.modelContextWindow;
  return {
    total,
    last,
    modelContextWindow: typeof window === "number" && window > 0 ? window : null,
  };
}
