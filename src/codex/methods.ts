/**
 * The app-server methods the relay sends: for each, the capability level that
 * allows it, the params the relay sends and the parser of its result (from
 * `validate.ts`). `Session.call` and `HeldConnection.call` are typed by this
 * map, and the allowlists are sets of its keys, so a misspelt method or a
 * wrong param is a type error, and every result arrives parsed.
 * @module
 */

import { RelayError } from "../core/errors.ts";
import { parseAccountRead } from "./account.ts";
import { parseModelList } from "./models.ts";
import { parseRateLimits, parseThreadCost } from "./rate_limits.ts";
import type { Capabilities } from "../core/capabilities.ts";
import type { ThreadSourceKind } from "./types.ts";
import {
  parseConfigRead,
  parseFsMetadata,
  parseItemsPage,
  parseLoadedSettings,
  parseQueueAdd,
  parseQueueDelete,
  parseQueueList,
  parseThreadList,
  parseThreadRead,
  parseThreadStart,
  parseTurnsPage,
} from "./validate.ts";

/** The level a method belongs to: the default (`queue`) or the capability flag that adds it. */
export type MethodLevel = "queue" | keyof Capabilities;

/** A result the relay does not read: whatever the app-server answered is dropped. */
const ignored = (_value: unknown): void => {};

/** The id of the turn a `turn/start` or `review/start` answer names (`{turn: {id}}`). */
function parseTurnStarted(value: unknown): string {
  const turn = (value as { turn?: { id?: unknown } } | null)?.turn;
  if (typeof turn?.id !== "string") {
    throw new Error("Unexpected app-server result: turn.id is not a string");
  }
  return turn.id;
}

/** The new thread of a `thread/fork` answer (`{thread: {id, forkedFromId, cwd, ...}}`, transcripts 24). */
function parseThreadForked(value: unknown): { threadId: string; cwd: string | null } {
  const thread = (value as { thread?: { id?: unknown; cwd?: unknown } } | null)?.thread;
  if (typeof thread?.id !== "string") {
    throw new Error("Unexpected app-server result: thread.id is not a string");
  }
  return { threadId: thread.id, cwd: typeof thread.cwd === "string" ? thread.cwd : null };
}

/** The id of the turn a `turn/steer` answer names (`{turnId}`). */
function parseTurnSteered(value: unknown): string {
  const turnId = (value as { turnId?: unknown } | null)?.turnId;
  if (typeof turnId !== "string") {
    throw new Error("Unexpected app-server result: turnId is not a string");
  }
  return turnId;
}

/**
 * Each method: its level and the parser of its result. The order is the
 * order of the design's and the README's tables (queue, reply read, turn start).
 */
const METHODS = {
  "thread/list": { level: "queue", result: parseThreadList },
  "thread/queue/add": { level: "queue", result: parseQueueAdd },
  "thread/queue/list": { level: "queue", result: parseQueueList },
  "thread/items/list": { level: "replyRead", result: parseItemsPage },
  "thread/items/read": { level: "replyRead", result: parseItemsPage },
  "thread/turns/list": { level: "replyRead", result: parseTurnsPage },
  // The recursion guard and the tightening check read the thread's config before a turn.
  "config/read": { level: "turnStart", result: parseConfigRead },
  "thread/start": { level: "turnStart", result: parseThreadStart },
  "thread/resume": { level: "turnStart", result: parseLoadedSettings },
  "thread/queue/start": { level: "turnStart", result: ignored },
  "turn/interrupt": { level: "turnStart", result: ignored },
  "thread/unsubscribe": { level: "turnStart", result: ignored },
  // codex_withdraw_message: deleting from a queue controls what Codex does.
  "thread/queue/delete": { level: "turnStart", result: parseQueueDelete },
  // codex_run refuses at once without a login or key.
  "account/read": { level: "turnStart", result: parseAccountRead },
  // codex_run's options: the thread's cwd (its config layers: the tightening check and the
  // recursion guard), name a new thread, check that a cwd exists.
  "thread/read": { level: "turnStart", result: parseThreadRead },
  "thread/name/set": { level: "turnStart", result: ignored },
  "fs/getMetadata": { level: "turnStart", result: parseFsMetadata },
  // codex_run with outputSchema: only turn/start takes it (on an idle thread: on a busy one it
  // steers); codex_steer; codex_review; the model and effort check (and doctor).
  "turn/start": { level: "turnStart", result: parseTurnStarted },
  "turn/steer": { level: "turnStart", result: parseTurnSteered },
  "review/start": { level: "turnStart", result: parseTurnStarted },
  "model/list": { level: "turnStart", result: parseModelList },
  // codex_usage: the rate-limit windows and a thread's estimated cost, before delegating.
  "account/rateLimits/read": { level: "turnStart", result: parseRateLimits },
  "account/usage/read": { level: "turnStart", result: parseThreadCost },
  // codex_fork (a new thread with the history) and codex_compact (a compaction turn).
  "thread/fork": { level: "turnStart", result: parseThreadForked },
  "thread/compact/start": { level: "turnStart", result: ignored },
} as const satisfies Record<string, { level: MethodLevel; result: (value: unknown) => unknown }>;

/** An app-server method the relay sends (a key of the method map). */
export type Method = keyof typeof METHODS;

/** Every method of the map, in its order. */
export const METHOD_NAMES: readonly Method[] = Object.freeze(Object.keys(METHODS) as Method[]);

/** `thread/start` / `thread/resume` settings of a run (besides `config`). */
export interface RunParams {
  /** `codex_run`'s `model`. */
  model?: string;
  /** `codex_run`'s `sandbox` (config spelling). */
  sandbox?: string;
  /** `codex_run`'s `approvalPolicy`. */
  approvalPolicy?: string;
  /** The compatibility `codex`'s `base-instructions`. */
  baseInstructions?: string;
  /** The compatibility `codex`'s `developer-instructions`. */
  developerInstructions?: string;
}

/** `thread/items/list` cursor: an app-server cursor, or an item to continue after. */
export type ItemsCursor = string | { type: "item"; itemId: string };

/** The order of a page. */
export type SortDirection = "asc" | "desc";

/** One text input of `thread/queue/add`. */
export interface TextInput {
  /** Always `text`. */
  type: "text";
  /** The message text. */
  text: string;
  /** The relay sends it empty. */
  text_elements: unknown[];
}

/** An image input of `turn/start` / `turn/steer`: a file Codex reads, or a data URL. */
export type ImageInput = { type: "localImage"; path: string } | { type: "image"; url: string };

/**
 * The params of each method, as docs/codex-protocol.md records them (`?`:
 * the app-server has a default).
 */
export interface MethodParams {
  "thread/list": {
    limit?: number;
    cursor?: string;
    sourceKinds?: readonly ThreadSourceKind[];
    searchTerm?: string;
    /** Only threads whose cwd is this folder. */
    cwd?: string;
  };
  "thread/queue/add": { threadId: string; clientUserMessageId: string; input: TextInput[] };
  "thread/queue/list": { threadId: string; cursor?: string };
  "thread/items/list": {
    threadId: string;
    turnId?: string;
    sortDirection?: SortDirection;
    limit?: number;
    cursor?: ItemsCursor;
  };
  "thread/items/read": { threadId: string; turnId: string; itemIds: string[] };
  "thread/turns/list": {
    threadId: string;
    limit?: number;
    cursor?: string;
    sortDirection?: SortDirection;
    itemsView?: "notLoaded" | "summary" | "full";
  };
  "config/read": { cwd?: string };
  "thread/start": RunParams & { cwd: string; config?: Record<string, unknown> };
  "thread/resume": RunParams & {
    threadId: string;
    excludeTurns?: boolean;
    config?: Record<string, unknown>;
  };
  "thread/queue/start": { threadId: string; queuedSubmissionId?: string };
  "turn/interrupt": { threadId: string; turnId: string };
  "thread/unsubscribe": { threadId: string };
  "thread/queue/delete": { threadId: string; queuedSubmissionId: string };
  "account/read": Record<string, never>;
  "thread/read": { threadId: string };
  "thread/name/set": { threadId: string; name: string };
  "fs/getMetadata": { path: string };
  "turn/start": {
    threadId: string;
    clientUserMessageId: string;
    input: (TextInput | ImageInput)[];
    outputSchema?: Record<string, unknown>;
  };
  "turn/steer": {
    threadId: string;
    expectedTurnId: string;
    clientUserMessageId: string;
    input: (TextInput | ImageInput)[];
  };
  "review/start": { threadId: string; target: ReviewTarget };
  "model/list": { cursor?: string; includeHidden?: boolean; limit?: number };
  "account/rateLimits/read": Record<string, never>;
  "account/usage/read": { threadId?: string };
  "thread/fork": { threadId: string; excludeTurns?: boolean };
  "thread/compact/start": { threadId: string };
}

/** What `review/start` reviews (docs/codex-protocol.md, "Code review"). */
export type ReviewTarget =
  | { type: "uncommittedChanges" }
  | { type: "baseBranch"; branch: string }
  | { type: "commit"; sha: string; title?: string }
  | { type: "custom"; instructions: string };

/** The params of `M`. */
export type ParamsOf<M extends Method> = MethodParams[M];

/** What a call of `M` resolves with: its result as parsed. */
export type ResultOf<M extends Method> = ReturnType<(typeof METHODS)[M]["result"]>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Every method has its params and every params entry is a method (a type error otherwise).
// Stryker disable next-line BooleanLiteral: a compile-time check (deno check fails on it); nothing reads the value at run time
const _sameKeys: Same<Method, keyof MethodParams> = true;

/**
 * A result that failed its method's parser: `protocol_error` with the
 * parser's message and `written` false, as the parsers have always thrown.
 * A caller that must tell a malformed answer from a request that was never
 * written (an acknowledgement: the request did reach Codex) checks for this
 * class.
 */
export class MalformedResult extends RelayError {
  constructor(message: string, cause: unknown) {
    // Named RelayError still: logs and messages say what they said before the map.
    super("protocol_error", message, { cause });
  }
}

/**
 * Parses `value` as the result of `method`; a malformed one throws
 * {@linkcode MalformedResult} with the parser's message.
 */
export function parseResult<M extends Method>(method: M, value: unknown): ResultOf<M> {
  try {
    return METHODS[method].result(value) as ResultOf<M>;
  } catch (error) {
    throw new MalformedResult(error instanceof Error ? error.message : String(error), error);
  }
}

/** Whether `name` is a method of the map. */
export function isMethod(name: string): name is Method {
  return Object.hasOwn(METHODS, name);
}

/** The level that allows `method`. */
export function levelOf(method: Method): MethodLevel {
  return METHODS[method].level;
}

/** The app-server methods a connection may send at these capabilities, in the map's order. */
export function allowedMethods(caps: Capabilities): ReadonlySet<Method> {
  return new Set(METHOD_NAMES.filter((m) => {
    const level = levelOf(m);
    return level === "queue" || caps[level];
  }));
}
