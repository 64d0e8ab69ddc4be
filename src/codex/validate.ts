/**
 * Validators for the app-server results the relay reads. They check only the
 * fields the relay relies on, keep unknown fields and item types, and fail
 * closed (`protocol_error`) when a relied-on field is missing or malformed.
 * @module
 */

import { RelayError } from "../core/errors.ts";
import {
  AGENT_PHASES,
  type AgentPhase,
  type ItemEntry,
  type ItemsPage,
  type QueuedSubmission,
  type QueueListPage,
  type RawItem,
  type Thread,
  THREAD_STATUSES,
  type ThreadItem,
  type ThreadListPage,
  type ThreadStatus,
  type Turn,
  TURN_STATUSES,
  type TurnError,
  type TurnsPage,
  type TurnStatus,
} from "./types.ts";

type Obj = Record<string, unknown>;

function fail(what: string): never {
  throw new RelayError("protocol_error", `Unexpected app-server result: ${what}`);
}

function obj(value: unknown, what: string): Obj {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    fail(`${what} is not an object`);
  }
  return value as Obj;
}

function arr(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) fail(`${what} is not an array`);
  return value;
}

function str(value: unknown, what: string): string {
  if (typeof value !== "string") fail(`${what} is not a string`);
  return value;
}

function strOrNull(value: unknown, what: string): string | null {
  if (value === null || value === undefined) return null;
  return str(value, what);
}

function cursor(value: unknown, what: string): string | null {
  return strOrNull(value, what);
}

const PHASES: readonly string[] = AGENT_PHASES;

/** Validates a `thread/start` result: the new thread's id. */
export function parseThreadStart(value: unknown): { threadId: string } {
  const thread = obj(obj(value, "thread/start result").thread, "thread/start thread");
  return { threadId: str(thread.id, "thread/start thread.id") };
}

/**
 * Validates a `thread/read` result: the thread's working directory (its config layers' key) and
 * whether this app-server has it loaded (`status.type` other than `notLoaded`; absent: not).
 */
export function parseThreadRead(value: unknown): { cwd: string; loaded: boolean } {
  const thread = obj(obj(value, "thread/read result").thread, "thread/read thread");
  const cwd = str(thread.cwd, "thread/read thread.cwd");
  if (cwd.length === 0) fail("thread/read thread.cwd is empty");
  const status = (thread.status as Obj | null | undefined)?.type;
  return { cwd, loaded: typeof status === "string" && status !== "notLoaded" };
}

/**
 * The sandbox mode and approval policy a `thread/start` / `thread/resume`
 * result reports the thread runs with (Codex 0.169: `sandbox: {type:
 * "readOnly"|"workspaceWrite"|"dangerFullAccess"|...}`, `approvalPolicy`: a
 * string or a granular object), in config spelling; absent or unknown: null.
 */
export function parseLoadedSettings(
  value: unknown,
): { sandbox: string | null; approvalPolicy: string | null; active: boolean } {
  const r = typeof value === "object" && value !== null ? value as Obj : {};
  const thread = typeof r.thread === "object" && r.thread !== null ? r.thread as Obj : {};
  const status = (thread.status as Obj | null | undefined)?.type;
  const type = (r.sandbox as Obj | null | undefined)?.type;
  const sandbox = { readOnly: "read-only", workspaceWrite: "workspace-write" }[String(type)] ??
    (type === "dangerFullAccess" ? "danger-full-access" : null);
  return {
    sandbox,
    approvalPolicy: typeof r.approvalPolicy === "string" ? r.approvalPolicy : null,
    // A turn runs on the thread now (a loaded thread: the daemon, the turn host).
    active: status === "active",
  };
}

/** Validates one thread of `thread/list`. */
export function parseThread(value: unknown): Thread {
  const t = obj(value, "thread");
  const status = obj(t.status, "thread.status").type;
  if (!(THREAD_STATUSES as readonly string[]).includes(status as string)) {
    fail("thread.status.type is unknown");
  }
  if (typeof t.updatedAt !== "number" || !Number.isFinite(t.updatedAt)) {
    fail("thread.updatedAt is not a number");
  }
  return {
    id: str(t.id, "thread.id"),
    name: strOrNull(t.name, "thread.name"),
    status: status as ThreadStatus,
    updatedAt: t.updatedAt,
    cwd: typeof t.cwd === "string" ? t.cwd : null,
    activeFlags: strings((t.status as Obj).activeFlags),
    parentThreadId: typeof t.parentThreadId === "string" ? t.parentThreadId : null,
  };
}

/** Validates a `thread/list` result. */
export function parseThreadList(value: unknown): ThreadListPage {
  const r = obj(value, "thread/list result");
  return {
    data: arr(r.data, "thread/list data").map(parseThread),
    nextCursor: cursor(r.nextCursor, "thread/list nextCursor"),
  };
}

function parseSubmission(value: unknown): QueuedSubmission {
  const s = obj(value, "queued submission");
  return {
    id: str(s.id, "queuedSubmission.id"),
    clientUserMessageId: strOrNull(s.clientUserMessageId, "queuedSubmission.clientUserMessageId"),
  };
}

/** Validates a `thread/queue/add` result and returns its submission. */
export function parseQueueAdd(value: unknown): QueuedSubmission {
  return parseSubmission(obj(value, "thread/queue/add result").queuedSubmission);
}

/** Validates a `thread/queue/list` result. */
export function parseQueueList(value: unknown): QueueListPage {
  const r = obj(value, "thread/queue/list result");
  return {
    data: arr(r.data, "thread/queue/list data").map(parseSubmission),
    nextCursor: cursor(r.nextCursor, "thread/queue/list nextCursor"),
  };
}

/**
 * Validates one thread item. A user message needs a string id and a string or
 * null `clientId`; an agent message needs string `text` and a known phase or
 * null/absent. Other item types only need a type and an id.
 */
export function parseItem(value: unknown): ThreadItem {
  const i = obj(value, "item");
  const type = str(i.type, "item.type");
  const id = str(i.id, "item.id");
  if (type === "userMessage") {
    return { type, id, clientId: strOrNull(i.clientId, "userMessage.clientId") };
  }
  if (type === "agentMessage") {
    const text = str(i.text, "agentMessage.text");
    const phase = i.phase ?? null;
    if (phase !== null && !PHASES.includes(phase as AgentPhase)) {
      fail("agentMessage.phase is unknown");
    }
    return { type, id, text, phase: phase as AgentPhase | null, moderation: i.moderation ?? null };
  }
  return { type, id };
}

/**
 * Validates the envelope of one entry of `thread/items/list` or
 * `thread/items/read`: its turn id and that the item is an object with a type.
 * The item itself stays raw; callers parse ({@linkcode parseItem}) only the
 * items they rely on, so one odd item elsewhere in a page fails nothing.
 */
export function parseItemEntry(value: unknown): ItemEntry {
  const e = obj(value, "item entry");
  const item = obj(e.item, "entry.item");
  str(item.type, "item.type");
  return { turnId: str(e.turnId, "entry.turnId"), item: item as RawItem };
}

/** Validates a `thread/items/list` or `thread/items/read` result. */
export function parseItemsPage(value: unknown): ItemsPage {
  const r = obj(value, "items result");
  return {
    data: arr(r.data, "items data").map(parseItemEntry),
    nextCursor: cursor(r.nextCursor, "items nextCursor"),
  };
}

function parseTurnError(value: unknown): TurnError | null {
  if (value === null || value === undefined) return null;
  const e = obj(value, "turn.error");
  return {
    message: typeof e.message === "string" ? e.message : "",
    codexErrorInfo: e.codexErrorInfo ?? null,
  };
}

/** Validates one turn summary. */
export function parseTurn(value: unknown): Turn {
  const t = obj(value, "turn");
  if (!(TURN_STATUSES as readonly string[]).includes(t.status as string)) {
    fail("turn.status is unknown");
  }
  const completedAt = t.completedAt ?? null;
  if (completedAt !== null && typeof completedAt !== "number") {
    fail("turn.completedAt is not a number");
  }
  return {
    id: str(t.id, "turn.id"),
    status: t.status as TurnStatus,
    error: parseTurnError(t.error),
    completedAt: completedAt as number | null,
    startedAt: typeof t.startedAt === "number" && Number.isFinite(t.startedAt) ? t.startedAt : null,
    clientIds: userClientIds(t.items),
    rootTurnId: typeof t.rootTurnId === "string" ? t.rootTurnId : null,
  };
}

/** The strings of `value` when it is an array (anything else: none). */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The `clientId` of each user message among `items` (when they were read). */
function userClientIds(items: unknown): string[] {
  if (!Array.isArray(items)) return [];
  return items
    .map((i) => i as Obj | null)
    .filter((i) => i?.type === "userMessage" && typeof i.clientId === "string")
    .map((i) => i!.clientId as string);
}

/** Validates a `thread/turns/list` result. */
export function parseTurnsPage(value: unknown): TurnsPage {
  const r = obj(value, "thread/turns/list result");
  return {
    data: arr(r.data, "turns data").map(parseTurn),
    nextCursor: cursor(r.nextCursor, "turns nextCursor"),
  };
}

/** Validates a `thread/queue/delete` result: whether the submission was deleted. */
export function parseQueueDelete(value: unknown): { deleted: boolean } {
  const deleted = obj(value, "thread/queue/delete result").deleted;
  if (typeof deleted !== "boolean") fail("thread/queue/delete deleted is not a boolean");
  return { deleted };
}

/** Validates an `fs/getMetadata` result: whether the path is a directory. */
export function parseFsMetadata(value: unknown): { isDirectory: boolean } {
  const isDirectory = obj(value, "fs/getMetadata result").isDirectory;
  if (typeof isDirectory !== "boolean") fail("fs/getMetadata isDirectory is not a boolean");
  return { isDirectory };
}

/** Validates a `config/read` result: its `config` object (the effective configuration). */
export function parseConfigRead(value: unknown): { config: Record<string, unknown> } {
  const config = (value as Obj | null | undefined)?.config;
  if (typeof config !== "object" || config === null) {
    throw new RelayError("protocol_error", "config/read returned no config object");
  }
  return { config: config as Record<string, unknown> };
}

/** The sandbox and approval settings of a `config/read` config (null when unset or unknown). */
export function parseRunConfig(
  config: unknown,
): { sandbox: string | null; approvalPolicy: string | null; granular: boolean } {
  const c = obj(config, "config/read config");
  const sandbox = typeof c.sandbox_mode === "string" ? c.sandbox_mode : null;
  const policy = c.approval_policy;
  return {
    sandbox,
    approvalPolicy: typeof policy === "string" ? policy : null,
    granular: typeof policy === "object" && policy !== null,
  };
}

/** What an item of a running turn says about what Codex is doing (never its text or output). */
export type ItemActivity =
  | { kind: "command" }
  | { kind: "fileChange"; files: number }
  | { kind: "mcpTool"; server: string; tool: string }
  | { kind: "tool"; tool: string }
  | { kind: "webSearch" }
  | { kind: "reasoning" }
  | { kind: "answer" }
  | { kind: "other" };

/** A name Codex reports (tool, server), bounded and free of control characters. */
function label(value: unknown): string {
  if (typeof value !== "string") return "?";
  // deno-lint-ignore no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, "").slice(0, 64);
  return clean.isWellFormed() && clean.length > 0 ? clean : "?";
}

/** Reads what an item (of `item/started`) shows Codex doing: kinds and names, no content. */
export function parseItemActivity(item: unknown): ItemActivity {
  if (typeof item !== "object" || item === null) return { kind: "other" };
  const i = item as Obj;
  switch (i.type) {
    case "commandExecution":
      return { kind: "command" };
    case "fileChange":
      return { kind: "fileChange", files: Array.isArray(i.changes) ? i.changes.length : 0 };
    case "mcpToolCall":
      return { kind: "mcpTool", server: label(i.server), tool: label(i.tool) };
    case "dynamicToolCall":
      return { kind: "tool", tool: label(i.tool) };
    case "webSearch":
      return { kind: "webSearch" };
    case "reasoning":
      return { kind: "reasoning" };
    case "agentMessage":
      return { kind: "answer" };
    default:
      return { kind: "other" };
  }
}
