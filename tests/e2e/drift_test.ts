/**
 * Protocol drift check: generates the JSON schema of the installed Codex
 * (`codex app-server generate-json-schema --experimental`) and checks that every method and
 * field the relay relies on still exists with the type its validators expect.
 *
 * {@link RELIED_ON} is the one table: what `src/codex/validate.ts` reads (and what the reply
 * reader, the turn runtime and the elicitation router read per docs/design.md), and samples of the
 * params and answers the relay sends. Two directions are checked:
 *
 * - `send` rows: the sample validates against the schema, and every field in it is declared
 *   (a renamed field would otherwise be silently ignored; a new required field fails it).
 * - `read` rows: the field exists; every type the schema allows there is one the validator
 *   accepts; a field the validator requires is required and not nullable; every enum value the
 *   relay relies on still exists, and no value exists that the validator would reject (a new
 *   value would fail closed), apart from those listed in `tolerated`.
 * - `classified` rows: every value a release has at a place the relay classifies (error kinds,
 *   elicitation modes, moderation display modes, server request methods) is in the relay's own
 *   table, so a value added by the next release fails the check instead of passing silently.
 *
 * Without a codex binary the check is reported as ignored and a SKIPPED line is printed.
 */
import assert from "node:assert/strict";
import { codexForTests } from "../../testing/codex_bin.ts";
import { ELICITATION_MODES, REFUSED_METHODS, ROUTED_METHODS } from "../../src/elicit/mappings.ts";
import { DISPLAY_MODES } from "../../src/reply/moderation.ts";
import { ERROR_KIND_CLASSES } from "../../src/turn/classify_failure.ts";
import { type Schema, SchemaDoc } from "./schema_check.ts";

const BIN = codexForTests("tests/e2e/drift_test.ts");

/** Where a row looks. */
type Where =
  | { request: string } // params of a client→server request
  | { result: string } // its result
  | { serverRequest: string } // params of a server→client request
  | { answer: string } // the client's answer to it
  | { notification: string }; // params of a notification

/** JSON types as a validator accepts them; `number` also accepts `integer`. */
type JsonType = "string" | "number" | "integer" | "boolean" | "object" | "array" | "null" | "any";

/** A field the relay reads. */
interface ReadRow {
  at: Where;
  path: string;
  types: JsonType[];
  /** The validator fails without it (then it must be required and not nullable). */
  required?: boolean;
  /** The values the relay knows; all must exist, and no other may. */
  enum?: string[];
  /** Values in the schema the relay does not know but tolerates (documented exceptions). */
  tolerated?: string[];
  /**
   * Names the relay looks for in an open union (unknown ones are fine): each must still be an
   * enum value or an object key of some alternative.
   */
  names?: string[];
}

/**
 * A place whose values the relay classifies: every enum or const value there, and every field
 * name of an object alternative (tagged unions such as `{httpConnectionFailed: {...}}`), must be
 * in `classified`. An open alternative (a bare `string` or `object`) adds nothing.
 */
interface ClassifiedRow {
  at: Where;
  path: string;
  classified: readonly unknown[];
  /** The place may be absent in a release (the relay then treats every value as unknown). */
  optional?: boolean;
}

/** The method names of a union of messages (`ServerRequest`, ...). */
interface MethodsRow {
  methodsOf: "ServerRequest";
  classified: readonly string[];
}

/** A value the relay sends. */
interface SendRow {
  at: Where;
  sample: Record<string, unknown>;
}

/** A value the relay reads at one place and sends back unchanged at another. */
interface SameAsRow {
  at: Where;
  path: string;
  /** Where it is sent: the schemas there must be identical. */
  sameAs: { at: Where; path: string };
}

const T = "019ac5a8-0000-7000-8000-000000000001"; // a thread id
const U = "019ac5a8-0000-7000-8000-000000000002"; // a turn id
const C = "0b5f6a4e-7c1d-4e0a-9a51-4c2f8d0e6b31"; // a clientMessageId
const STR: JsonType[] = ["string"];
const STR_NULL: JsonType[] = ["string", "null"];
const NUM: JsonType[] = ["number"];
const NUM_NULL: JsonType[] = ["number", "null"];
const OBJ: JsonType[] = ["object"];
const ARR: JsonType[] = ["array"];
const ANY: JsonType[] = ["any"];
const TURN_STATUSES = ["inProgress", "completed", "failed", "interrupted"];
const PHASES = ["commentary", "partial_answer", "final_answer"];

const HTTP_FAILURES = [
  "httpConnectionFailed",
  "responseStreamConnectionFailed",
  "responseStreamDisconnected",
  "responseTooManyFailedAttempts",
];
const ITEM = "data[].item";
const modes = (how: "forward" | "decline") =>
  Object.entries(ELICITATION_MODES).filter(([, h]) => h === how).map(([m]) => m);
const USER = `${ITEM}<userMessage>`;
const AGENT = `${ITEM}<agentMessage>`;

/**
 * Everything the relay relies on. Sources: `src/codex/validate.ts` (parseThreadList,
 * parseQueueAdd, parseQueueList, parseItem, parseItemsPage, parseTurnsPage, parseTurn), the
 * params sent by the backends in `src/connect/` (initialize), `src/codex/methods.ts` (the params
 * of every method sent), `src/ops/` (list, queue, items, turns), `src/turn/` (config/read, thread
 * start/resume, queue start, interrupt, unsubscribe), the answers `src/elicit/mappings.ts` writes,
 * and docs/design.md.
 * Update it with the code: a field the relay starts to rely on belongs here.
 */
export const RELIED_ON: readonly (ReadRow | SendRow | SameAsRow | ClassifiedRow | MethodsRow)[] = [
  // --- every connection: the handshake (spawn_connection.ts, daemon_connection.ts)
  {
    at: { request: "initialize" },
    sample: {
      clientInfo: { name: "codex_relay", title: "codex-relay", version: "0.1.0" },
      capabilities: { experimentalApi: true },
    },
  },
  // --- doctor: the login (src/cli/doctor.ts loginFinding)
  { at: { request: "account/read" }, sample: {} },
  { at: { result: "account/read" }, path: "account", types: ["object", "null"] },
  { at: { result: "account/read" }, path: "requiresOpenaiAuth", types: ["boolean"] },
  // --- queue level: thread/list (list_threads.ts, name lookup in queue_message.ts)
  { at: { request: "thread/list" }, sample: { limit: 100, cursor: "opaque" } },
  { at: { result: "thread/list" }, path: "data", types: ARR, required: true },
  { at: { result: "thread/list" }, path: "data[].id", types: STR, required: true },
  { at: { result: "thread/list" }, path: "data[].name", types: STR_NULL },
  {
    at: { result: "thread/list" },
    path: "data[].status.type",
    types: STR,
    required: true,
    enum: ["idle", "active", "notLoaded", "systemError"],
  },
  { at: { result: "thread/list" }, path: "data[].updatedAt", types: NUM, required: true },
  { at: { result: "thread/list" }, path: "nextCursor", types: STR_NULL },
  // The turn-start level lists each thread's cwd (list_threads.ts).
  { at: { result: "thread/list" }, path: "data[].cwd", types: STR },
  // --- turn-start level: codex_withdraw_message (withdraw_message.ts)
  { at: { request: "thread/queue/delete" }, sample: { threadId: T, queuedSubmissionId: "q-1" } },
  { at: { result: "thread/queue/delete" }, path: "deleted", types: ["boolean"], required: true },
  // --- queue level: thread/queue/add, thread/queue/list (queue_message.ts)
  {
    at: { request: "thread/queue/add" },
    sample: {
      threadId: T,
      clientUserMessageId: C,
      input: [{ type: "text", text: "hello", text_elements: [] }],
    },
  },
  { at: { result: "thread/queue/add" }, path: "queuedSubmission", types: OBJ, required: true },
  { at: { result: "thread/queue/add" }, path: "queuedSubmission.id", types: STR, required: true },
  {
    at: { result: "thread/queue/add" },
    path: "queuedSubmission.clientUserMessageId",
    types: STR_NULL,
  },
  { at: { request: "thread/queue/list" }, sample: { threadId: T, cursor: "opaque" } },
  { at: { result: "thread/queue/list" }, path: "data", types: ARR, required: true },
  { at: { result: "thread/queue/list" }, path: "data[].id", types: STR, required: true },
  { at: { result: "thread/queue/list" }, path: "data[].clientUserMessageId", types: STR_NULL },
  { at: { result: "thread/queue/list" }, path: "nextCursor", types: STR_NULL },
  // --- reply read: thread/items/list (string cursor or item anchor), thread/items/read
  {
    at: { request: "thread/items/list" },
    sample: { threadId: T, limit: 100, sortDirection: "desc" },
  },
  {
    at: { request: "thread/items/list" },
    sample: { threadId: T, cursor: "opaque", limit: 100, sortDirection: "desc" },
  },
  {
    at: { request: "thread/items/list" },
    sample: { threadId: T, turnId: U, limit: 100, sortDirection: "asc" },
  },
  {
    at: { request: "thread/items/list" },
    sample: {
      threadId: T,
      turnId: U,
      cursor: { type: "item", itemId: "msg_1_final" },
      limit: 100,
      sortDirection: "asc",
    },
  },
  { at: { result: "thread/items/list" }, path: "data", types: ARR, required: true },
  { at: { result: "thread/items/list" }, path: "data[].turnId", types: STR, required: true },
  { at: { result: "thread/items/list" }, path: ITEM, types: OBJ, required: true },
  { at: { result: "thread/items/list" }, path: `${ITEM}.type`, types: STR, required: true },
  { at: { result: "thread/items/list" }, path: `${USER}.id`, types: STR, required: true },
  { at: { result: "thread/items/list" }, path: `${USER}.clientId`, types: STR_NULL },
  { at: { result: "thread/items/list" }, path: `${AGENT}.id`, types: STR, required: true },
  { at: { result: "thread/items/list" }, path: `${AGENT}.text`, types: STR, required: true },
  {
    at: { result: "thread/items/list" },
    path: `${AGENT}.phase`,
    types: STR_NULL,
    enum: PHASES,
  },
  { at: { result: "thread/items/list" }, path: "nextCursor", types: STR_NULL },
  // src/reply/moderation.ts: the display instruction of a moderated answer (0.171 on; 0.169 has
  // a free-form `action`, which the relay never shows).
  ...["thread/items/list", "thread/items/read"].flatMap((m): ClassifiedRow[] => [
    {
      at: { result: m },
      path: `${AGENT}.moderation.display.mode`,
      classified: DISPLAY_MODES,
      optional: true,
    },
    {
      at: { result: m },
      path: `${AGENT}.moderation.display.version`,
      classified: [1],
      optional: true,
    },
  ]),
  {
    at: { request: "thread/items/read" },
    sample: { threadId: T, turnId: U, itemIds: ["019ac5a8-0000-7000-8000-00000000000a"] },
  },
  { at: { result: "thread/items/read" }, path: "data", types: ARR, required: true },
  { at: { result: "thread/items/read" }, path: "data[].turnId", types: STR, required: true },
  { at: { result: "thread/items/read" }, path: `${USER}.id`, types: STR, required: true },
  { at: { result: "thread/items/read" }, path: `${USER}.clientId`, types: STR_NULL },
  { at: { result: "thread/items/read" }, path: `${AGENT}.text`, types: STR, required: true },
  { at: { result: "thread/items/read" }, path: `${AGENT}.phase`, types: STR_NULL, enum: PHASES },
  // --- reply read: thread/turns/list (turn status from summaries without items)
  {
    at: { request: "thread/turns/list" },
    sample: { threadId: T, limit: 50, sortDirection: "desc", itemsView: "notLoaded" },
  },
  {
    at: { request: "thread/turns/list" },
    sample: { threadId: T, limit: 50, sortDirection: "desc", itemsView: "summary" },
  },
  {
    at: { request: "thread/turns/list" },
    sample: { threadId: T, limit: 1, sortDirection: "desc", itemsView: "notLoaded" },
  },
  { at: { result: "thread/turns/list" }, path: "data", types: ARR, required: true },
  { at: { result: "thread/turns/list" }, path: "data[].id", types: STR, required: true },
  {
    at: { result: "thread/turns/list" },
    path: "data[].status",
    types: STR,
    required: true,
    enum: TURN_STATUSES,
  },
  { at: { result: "thread/turns/list" }, path: "data[].error", types: ["object", "null"] },
  { at: { result: "thread/turns/list" }, path: "data[].error.message", types: STR },
  { at: { result: "thread/turns/list" }, path: "data[].error.codexErrorInfo", types: ANY },
  { at: { result: "thread/turns/list" }, path: "data[].completedAt", types: NUM_NULL },
  // codex_list_threads' earlier-process runs (src/ops/listed_runs.ts, src/codex/validate.ts):
  // the newest turn's summary, its start and its user message's clientId.
  {
    at: { request: "thread/turns/list" },
    sample: { threadId: T, limit: 1, sortDirection: "desc", itemsView: "summary" },
  },
  { at: { result: "thread/turns/list" }, path: "data[].startedAt", types: NUM_NULL },
  { at: { result: "thread/turns/list" }, path: "data[].items", types: ARR },
  {
    at: { result: "thread/turns/list" },
    path: "data[].items[]<userMessage>.clientId",
    types: STR_NULL,
  },
  { at: { result: "thread/list" }, path: "data[].status<active>.activeFlags", types: ARR },
  { at: { result: "thread/turns/list" }, path: "nextCursor", types: STR_NULL },
  // --- Codex's own jobs (issue 30): codex_review (review/start, its items), codex_run with
  // outputSchema (turn/start), codex_steer (turn/steer), the model and effort check (model/list)
  {
    at: { request: "review/start" },
    sample: { threadId: T, target: { type: "uncommittedChanges" } },
  },
  {
    at: { request: "review/start" },
    sample: { threadId: T, target: { type: "baseBranch", branch: "main" } },
  },
  {
    at: { request: "review/start" },
    sample: { threadId: T, target: { type: "commit", sha: "7d1f252" } },
  },
  {
    at: { request: "review/start" },
    sample: { threadId: T, target: { type: "custom", instructions: "Check calc.js" } },
  },
  { at: { result: "review/start" }, path: "turn.id", types: STR, required: true },
  {
    at: { request: "turn/start" },
    sample: {
      threadId: T,
      clientUserMessageId: C,
      input: [{ type: "text", text: "hello", text_elements: [] }],
      outputSchema: { type: "object", properties: {}, required: [], additionalProperties: false },
    },
  },
  { at: { result: "turn/start" }, path: "turn.id", types: STR, required: true },
  {
    at: { request: "turn/steer" },
    sample: {
      threadId: T,
      expectedTurnId: T,
      clientUserMessageId: C,
      input: [{ type: "text", text: "hello", text_elements: [] }],
    },
  },
  { at: { result: "turn/steer" }, path: "turnId", types: STR, required: true },
  // --- what a run cost (issue 42): codex_fork, codex_compact, usage, codex_usage's limits
  { at: { request: "thread/fork" }, sample: { threadId: T, excludeTurns: true } },
  { at: { result: "thread/fork" }, path: "thread.id", types: STR, required: true },
  { at: { request: "thread/compact/start" }, sample: { threadId: T } },
  { at: { notification: "thread/tokenUsage/updated" }, path: "turnId", types: STR },
  {
    at: { notification: "thread/tokenUsage/updated" },
    path: "tokenUsage.last.totalTokens",
    types: NUM,
  },
  {
    at: { notification: "thread/tokenUsage/updated" },
    path: "tokenUsage.total.reasoningOutputTokens",
    types: NUM,
  },
  {
    at: { notification: "thread/tokenUsage/updated" },
    path: "tokenUsage.modelContextWindow",
    types: NUM_NULL,
  },
  // account/rateLimits/read takes no params (its result type is not derivable here): its
  // rateLimits are the notification's (the same snapshot type; parseRateLimits reads both).
  // account/usage/read is not in the generated schema (0.169, 0.171): codex_usage's e2e test
  // covers it.
  {
    at: { notification: "account/rateLimits/updated" },
    path: "rateLimits.primary.windowDurationMins",
    types: NUM_NULL,
  },
  { at: { request: "model/list" }, sample: { includeHidden: true } },
  { at: { result: "model/list" }, path: "data[].model", types: STR, required: true },
  {
    at: { result: "model/list" },
    path: "data[].supportedReasoningEfforts[].reasoningEffort",
    types: STR,
    required: true,
  },
  { at: { result: "model/list" }, path: "nextCursor", types: STR_NULL },
  // --- turn start (codex_run, codex_interrupt)
  // The recursion guard (src/turn/recursion_guard.ts) reads `config.mcp_servers`, which the
  // schema leaves undeclared (Config has additionalProperties); relay_e2e_turn_test.ts checks it live.
  { at: { request: "config/read" }, sample: { cwd: "/work/project" } },
  { at: { request: "config/read" }, sample: {} },
  { at: { result: "config/read" }, path: "config", types: OBJ, required: true },
  // codex_run's tightening check (run_options.ts): strings it ranks, anything else is tightest.
  {
    at: { result: "config/read" },
    path: "config.sandbox_mode",
    types: ["string", "null"],
    enum: ["read-only", "workspace-write", "danger-full-access"],
  },
  // The thread's cwd, whose config layers the check and the guard read (turn_start.ts).
  { at: { request: "thread/read" }, sample: { threadId: T } },
  { at: { result: "thread/read" }, path: "thread.cwd", types: STR, required: true },
  // The cwd check (turn_start.ts) and the name of a new thread.
  { at: { request: "fs/getMetadata" }, sample: { path: "/work/project" } },
  { at: { result: "fs/getMetadata" }, path: "isDirectory", types: ["boolean"], required: true },
  { at: { request: "thread/name/set" }, sample: { threadId: T, name: "Refactor parser" } },
  {
    at: { request: "thread/start" },
    sample: { cwd: "/work/project", config: { "mcp_servers.codex-relay.enabled": false } },
  },
  {
    at: { request: "thread/start" },
    sample: {
      cwd: "/work/project",
      model: "gpt-5.4",
      sandbox: "read-only",
      approvalPolicy: "untrusted",
      config: { "mcp_servers.codex-relay.enabled": false, model_reasoning_effort: "high" },
    },
  },
  {
    at: { request: "thread/resume" },
    sample: {
      threadId: T,
      excludeTurns: true,
      model: "gpt-5.4",
      sandbox: "workspace-write",
      approvalPolicy: "on-request",
      config: { model_reasoning_effort: "low" },
    },
  },
  { at: { result: "thread/start" }, path: "thread.id", types: STR, required: true },
  {
    at: { request: "thread/resume" },
    sample: {
      threadId: T,
      excludeTurns: true,
      config: { "mcp_servers.codex-relay.enabled": false },
    },
  },
  { at: { result: "thread/resume" }, path: "thread.id", types: STR, required: true },
  { at: { request: "thread/queue/start" }, sample: { threadId: T, queuedSubmissionId: "q-1" } },
  { at: { result: "thread/queue/start" }, path: "turn.id", types: STR, required: true },
  {
    at: { result: "thread/queue/start" },
    path: "turn.status",
    types: STR,
    required: true,
    enum: TURN_STATUSES,
  },
  { at: { request: "turn/interrupt" }, sample: { threadId: T, turnId: U } },
  { at: { request: "thread/unsubscribe" }, sample: { threadId: T } },
  // --- elicitation router: server→client requests and the answers written back
  ...["threadId", "serverName"].map((f): ReadRow => ({
    at: { serverRequest: "mcpServer/elicitation/request" },
    path: f,
    types: STR,
    required: true,
  })),
  { at: { serverRequest: "mcpServer/elicitation/request" }, path: "turnId", types: STR_NULL },
  {
    at: { serverRequest: "mcpServer/elicitation/request" },
    path: "mode",
    types: STR,
    required: true,
    enum: modes("forward"),
    // Not forwarded: the router answers them `decline` at once and tells the caller.
    tolerated: modes("decline"),
  },
  {
    at: { serverRequest: "mcpServer/elicitation/request" },
    path: "mode",
    classified: Object.keys(ELICITATION_MODES),
  },
  // src/elicit/mappings.ts: every server request is routed or refused by name.
  { methodsOf: "ServerRequest", classified: [...ROUTED_METHODS, ...REFUSED_METHODS] },
  {
    at: { serverRequest: "mcpServer/elicitation/request" },
    path: "<form>.message",
    types: STR,
    required: true,
  },
  {
    at: { serverRequest: "mcpServer/elicitation/request" },
    path: "<form>.requestedSchema",
    types: OBJ,
    required: true,
  },
  {
    at: { serverRequest: "mcpServer/elicitation/request" },
    path: "<url>.url",
    types: STR,
    required: true,
  },
  {
    at: { serverRequest: "mcpServer/elicitation/request" },
    path: "<url>.elicitationId",
    types: STR,
    required: true,
  },
  { at: { serverRequest: "mcpServer/elicitation/request" }, path: "<form>._meta", types: ANY },
  // The answers src/elicit/mappings.ts writes (forms, url, tool-call approvals, refusals).
  ...[
    { action: "accept", content: { colour: "blue", sure: true }, _meta: null },
    { action: "accept", content: null, _meta: null },
    { action: "accept", content: null, _meta: { persist: "session" } },
    { action: "decline", content: null, _meta: null },
    { action: "cancel", content: null, _meta: null },
  ].map((sample): SendRow => ({ at: { answer: "mcpServer/elicitation/request" }, sample })),
  ...[
    "item/commandExecution/requestApproval",
    "item/fileChange/requestApproval",
    "item/permissions/requestApproval",
    "item/tool/requestUserInput",
  ].flatMap((m) =>
    ["threadId", "turnId", "itemId"].map((f): ReadRow => ({
      at: { serverRequest: m },
      path: f,
      types: STR,
      required: true,
    }))
  ),
  ...["command", "cwd", "reason"].map((f): ReadRow => ({
    at: { serverRequest: "item/commandExecution/requestApproval" },
    path: f,
    types: STR_NULL,
  })),
  {
    at: { serverRequest: "item/commandExecution/requestApproval" },
    path: "availableDecisions",
    types: ["array", "null"],
  },
  {
    at: { serverRequest: "item/commandExecution/requestApproval" },
    path: "availableDecisions[]",
    types: ["string", "object"],
  },
  {
    // Offered decisions are passed back verbatim as the answer.
    at: { serverRequest: "item/commandExecution/requestApproval" },
    path: "availableDecisions[]",
    sameAs: { at: { answer: "item/commandExecution/requestApproval" }, path: "decision" },
  },
  ...[
    "accept",
    "acceptForSession",
    "decline",
    "cancel",
    { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["ls", "-la"] } },
    { applyNetworkPolicyAmendment: { network_policy_amendment: { action: "allow", host: "a" } } },
  ].map((decision): SendRow => ({
    at: { answer: "item/commandExecution/requestApproval" },
    sample: { decision },
  })),
  ...["reason", "grantRoot"].map((f): ReadRow => ({
    at: { serverRequest: "item/fileChange/requestApproval" },
    path: f,
    types: STR_NULL,
  })),
  ...["accept", "acceptForSession", "decline", "cancel"].map((decision): SendRow => ({
    at: { answer: "item/fileChange/requestApproval" },
    sample: { decision },
  })),
  {
    at: { serverRequest: "item/permissions/requestApproval" },
    path: "permissions",
    types: OBJ,
    required: true,
  },
  { at: { serverRequest: "item/permissions/requestApproval" }, path: "reason", types: STR_NULL },
  {
    // A grant passes the requested profile back as the granted one.
    at: { serverRequest: "item/permissions/requestApproval" },
    path: "permissions",
    sameAs: { at: { answer: "item/permissions/requestApproval" }, path: "permissions" },
  },
  ...[
    { permissions: {}, scope: "turn" },
    { permissions: { network: null, fileSystem: null }, scope: "session" },
  ].map((sample): SendRow => ({ at: { answer: "item/permissions/requestApproval" }, sample })),
  {
    at: { serverRequest: "item/tool/requestUserInput" },
    path: "questions",
    types: ARR,
    required: true,
  },
  ...["id", "header", "question"].map((f): ReadRow => ({
    at: { serverRequest: "item/tool/requestUserInput" },
    path: `questions[].${f}`,
    types: STR,
    required: true,
  })),
  {
    at: { serverRequest: "item/tool/requestUserInput" },
    path: "questions[].isOther",
    types: ["boolean", "null"],
  },
  {
    at: { serverRequest: "item/tool/requestUserInput" },
    path: "questions[].options",
    types: ["array", "null"],
  },
  {
    at: { serverRequest: "item/tool/requestUserInput" },
    path: "questions[].options[].label",
    types: STR,
    required: true,
  },
  ...[{ answers: { q1: { answers: ["yes"] } } }, { answers: {} }].map((sample): SendRow => ({
    at: { answer: "item/tool/requestUserInput" },
    sample,
  })),
  // --- turn runtime: notifications
  {
    at: { notification: "serverRequest/resolved" },
    path: "requestId",
    types: ["string", "integer"],
    required: true,
  },
  { at: { notification: "serverRequest/resolved" }, path: "threadId", types: STR, required: true },
  ...["turn/started", "turn/completed"].flatMap((m): ReadRow[] => [
    { at: { notification: m }, path: "threadId", types: STR, required: true },
    { at: { notification: m }, path: "turn.id", types: STR, required: true },
    {
      at: { notification: m },
      path: "turn.status",
      types: STR,
      required: true,
      enum: TURN_STATUSES,
    },
  ]),
  { at: { notification: "turn/completed" }, path: "turn.error", types: ["object", "null"] },
  { at: { notification: "turn/completed" }, path: "turn.error.message", types: STR },
  {
    // src/turn/classify_failure.ts: failure classes by name.
    at: { notification: "turn/completed" },
    path: "turn.error.codexErrorInfo",
    types: ANY,
    names: [
      ...["serverOverloaded", "rateLimitExceeded", "usageLimitExceeded", "flexUnavailable"],
      ...["policyCapacityUnavailable", "unauthorized", "badRequest", "contextWindowExceeded"],
      ...["sessionBudgetExceeded", "modelNotFound", "cyberPolicy", "misalignmentPolicyViolation"],
      ...["tooManyDenials", "inferenceHookDenied", "internalServerError", "threadRollbackFailed"],
      ...["sandboxError", "activeTurnNotSteerable", ...HTTP_FAILURES],
    ],
  },
  ...["turn/completed", "turn/started"].map((m): ClassifiedRow => ({
    at: { notification: m },
    path: "turn.error.codexErrorInfo",
    classified: Object.keys(ERROR_KIND_CLASSES),
  })),
  {
    at: { result: "thread/turns/list" },
    path: "data[].error.codexErrorInfo",
    classified: Object.keys(ERROR_KIND_CLASSES),
  },
  ...HTTP_FAILURES.map((name): ReadRow => ({
    at: { notification: "turn/completed" },
    path: `turn.error.codexErrorInfo.${name}.httpStatusCode`,
    types: NUM_NULL,
  })),
  { at: { notification: "turn/completed" }, path: "turn.completedAt", types: NUM_NULL },
  // The files a turn changed (src/turn/changed_files.ts; docs/codex-protocol.md).
  ...["threadId", "turnId", "diff"].map((path): ReadRow => ({
    at: { notification: "turn/diff/updated" },
    path,
    types: STR,
    required: true,
  })),
  {
    at: { notification: "item/completed" },
    path: "item<fileChange>.changes[].path",
    types: STR,
    required: true,
  },
  {
    at: { notification: "item/completed" },
    path: "item<fileChange>.status",
    types: STR,
    required: true,
  },
  ...["item/started", "item/completed"].flatMap((m): ReadRow[] => [
    { at: { notification: m }, path: "threadId", types: STR, required: true },
    { at: { notification: m }, path: "turnId", types: STR, required: true },
    { at: { notification: m }, path: "item.type", types: STR, required: true },
    { at: { notification: m }, path: "item.id", types: STR, required: true },
    { at: { notification: m }, path: "item<userMessage>.clientId", types: STR_NULL },
    { at: { notification: m }, path: "item<mcpToolCall>.id", types: STR, required: true },
  ]),
  {
    at: { notification: "item/completed" },
    path: "item<agentMessage>.phase",
    types: STR_NULL,
    enum: PHASES,
  },
];

// ---------------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;

function label(at: Where): string {
  const [k, v] = Object.entries(at)[0];
  return `${k} ${v}`;
}

/** The schema of a place, or an error text when Codex no longer has it. */
function locate(doc: SchemaDoc, at: Where): Schema | string {
  const defs = doc.root.definitions as Obj;
  const union = (name: string): Obj[] => ((defs[name] as Obj)?.oneOf ?? []) as Obj[];
  const paramsRef = (name: string, method: string): string | null => {
    for (const e of union(name)) {
      const props = e.properties as Obj | undefined;
      const m = (props?.method as Obj | undefined)?.enum as string[] | undefined;
      if (m?.[0] === method) return ((props!.params as Obj | undefined)?.$ref as string) ?? null;
    }
    return null;
  };
  const [kind, method] = Object.entries(at)[0] as [keyof Where, string];
  const source = kind === "request" || kind === "result"
    ? "ClientRequest"
    : kind === "notification"
    ? "ServerNotification"
    : "ServerRequest";
  const ref = paramsRef(source, method);
  if (!ref) return `${method} is not in ${source}`;
  let target = ref;
  if (kind === "result" || kind === "answer") {
    if (!ref.endsWith("Params")) return `cannot derive the result type of ${method} from ${ref}`;
    target = `${ref.slice(0, -"Params".length)}Response`;
  }
  try {
    return doc.pointer(target);
  } catch {
    return `${target} (for ${method}) is missing`;
  }
}

/** Every problem of the table against `doc` (empty when Codex still has all of it). */
export function driftProblems(doc: SchemaDoc, rows = RELIED_ON): string[] {
  const problems: string[] = [];
  for (const row of rows) {
    if ("methodsOf" in row) {
      for (const method of unionMethods(doc, row.methodsOf)) {
        if (!row.classified.includes(method)) {
          problems.push(`${row.methodsOf}: new method ${method} the relay does not classify`);
        }
      }
      continue;
    }
    const schema = locate(doc, row.at);
    const where = label(row.at);
    if (typeof schema === "string") {
      problems.push(`${where}: ${schema}`);
      continue;
    }
    if ("sample" in row) {
      for (const e of doc.validate(schema, row.sample)) problems.push(`${where}: sent ${e}`);
      continue;
    }
    const r = doc.resolve(schema, row.path);
    const at = `${where} ${row.path}`;
    if ("classified" in row) {
      if (!r) {
        if (!row.optional) problems.push(`${at}: missing`);
        continue;
      }
      for (const v of classifiedValues(r.alts)) {
        if (!row.classified.includes(v)) {
          problems.push(`${at}: new value ${JSON.stringify(v)} the relay does not classify`);
        }
      }
      continue;
    }
    if ("sameAs" in row) {
      const target = locate(doc, row.sameAs.at);
      const into = typeof target === "string" ? null : doc.resolve(target, row.sameAs.path);
      const to = `${label(row.sameAs.at)} ${row.sameAs.path}`;
      if (!r || !into) problems.push(`${at} → ${to}: missing`);
      else if (shape(doc, r.alts) !== shape(doc, into.alts)) {
        problems.push(`${at} → ${to}: the types differ, so it cannot be passed back unchanged`);
      }
      continue;
    }
    if (!r) {
      problems.push(`${at}: missing`);
      continue;
    }
    if (!row.types.includes("any")) {
      for (const t of r.types) {
        const ok = row.types.includes(t as JsonType) ||
          (t === "integer" && row.types.includes("number"));
        if (!ok) problems.push(`${at}: the schema allows ${t}, the relay expects ${row.types}`);
      }
    }
    for (const name of row.names ?? []) {
      const known = r.alts.some((alt) =>
        typeof alt === "object" &&
        ((Array.isArray(alt.enum) && alt.enum.includes(name)) ||
          (typeof alt.properties === "object" && alt.properties !== null &&
            name in alt.properties))
      );
      if (!known) problems.push(`${at}: ${name} no longer exists`);
    }
    if (row.required && !r.required) problems.push(`${at}: no longer required`);
    if (row.required && r.types.has("null")) problems.push(`${at}: may be null`);
    if (row.enum) {
      if (!r.enumValues) {
        problems.push(`${at}: no longer an enum`);
        continue;
      }
      for (const v of row.enum) {
        if (!r.enumValues.includes(v)) problems.push(`${at}: value ${v} no longer exists`);
      }
      for (const v of r.enumValues) {
        if (!row.enum.includes(v as string) && !row.tolerated?.includes(v as string)) {
          problems.push(`${at}: new value ${JSON.stringify(v)} the relay would reject`);
        }
      }
    }
  }
  return problems;
}

/** Enum and const values, and field names of object alternatives (see {@link ClassifiedRow}). */
function classifiedValues(alts: Schema[]): unknown[] {
  const out: unknown[] = [];
  for (const a of alts) {
    if (typeof a !== "object") continue;
    if (Array.isArray(a.enum)) out.push(...a.enum.filter((v) => v !== null));
    else if ("const" in a) out.push(a.const);
    else if (typeof a.properties === "object" && a.properties !== null) {
      out.push(...Object.keys(a.properties));
    }
  }
  return [...new Set(out)];
}

/** The `method` names of a message union such as `ServerRequest`. */
function unionMethods(doc: SchemaDoc, name: string): string[] {
  const defs = doc.root.definitions as Obj;
  return (((defs[name] as Obj)?.oneOf ?? []) as Obj[]).flatMap((e) => {
    const m = ((e.properties as Obj | undefined)?.method as Obj | undefined)?.enum;
    return Array.isArray(m) ? m.filter((v): v is string => typeof v === "string") : [];
  });
}

/** A canonical text of schema alternatives ($refs followed, descriptions and titles dropped). */
function shape(doc: SchemaDoc, alts: Schema[]): string {
  const seen = new Set<string>();
  const canon = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(canon);
    if (typeof node !== "object" || node === null) return node;
    const o = node as Obj;
    if (typeof o.$ref === "string") {
      if (seen.has(o.$ref)) return { $ref: o.$ref };
      seen.add(o.$ref);
      const out = canon(doc.deref(o as Schema));
      seen.delete(o.$ref);
      return out;
    }
    return Object.fromEntries(
      Object.keys(o).filter((k) =>
        !["description", "title", "default", "additionalProperties"]
          .includes(k)
      ).sort().map((k) => [k, canon(o[k])]),
    );
  };
  return JSON.stringify(alts.map(canon));
}

/** Generates the schema bundle of the installed Codex and loads it. */
async function generateSchema(bin: string): Promise<SchemaDoc> {
  const root = await Deno.makeTempDir({ prefix: "codex-drift-" });
  try {
    const out = await new Deno.Command(bin, {
      args: ["app-server", "generate-json-schema", "--experimental", "--out", `${root}/schema`],
      env: { HOME: root, CODEX_HOME: root, PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, `generate-json-schema failed: ${new TextDecoder().decode(out.stderr)}`);
    const text = await Deno.readTextFile(`${root}/schema/codex_app_server_protocol.schemas.json`);
    return new SchemaDoc(JSON.parse(text));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

let generated: Promise<SchemaDoc> | null = null;
function schema(): Promise<SchemaDoc> {
  return generated ??= generateSchema(BIN!.path);
}

Deno.test({
  name: "drift: every method and field the relay relies on exists in the installed Codex schema",
  ignore: BIN === null,
  async fn() {
    const doc = await schema();
    const problems = driftProblems(doc);
    assert.deepEqual(problems, [], `protocol drift:\n${problems.join("\n")}`);
  },
});

/** A deep copy of the generated schema, changed by `edit`. */
async function mutated(edit: (defs: Obj) => void): Promise<SchemaDoc> {
  const copy = structuredClone((await schema()).root);
  edit(copy.definitions as Obj);
  return new SchemaDoc(copy);
}

function v2(defs: Obj, name: string): Obj {
  return (defs.v2 as Obj)[name] as Obj;
}

function userMessageVariant(defs: Obj): Obj {
  return (v2(defs, "ThreadItem").oneOf as Obj[]).find((b) =>
    ((b.properties as Obj).type as Obj).enum instanceof Array &&
    (((b.properties as Obj).type as Obj).enum as string[])[0] === "userMessage"
  )!;
}

Deno.test({
  name:
    "drift: the check reports removed, renamed and retyped fields, new required params and enum values, and a changed pass-back type",
  ignore: BIN === null,
  async fn() {
    const removed = await mutated((defs) => {
      delete (userMessageVariant(defs).properties as Obj).clientId;
    });
    assert.ok(
      driftProblems(removed).includes(
        `result thread/items/list ${USER}.clientId: missing`,
      ),
      driftProblems(removed).join("\n"),
    );

    const newStatus = await mutated((defs) => {
      (v2(defs, "TurnStatus").enum as string[]).push("paused");
    });
    assert.ok(
      driftProblems(newStatus).includes(
        `result thread/turns/list data[].status: new value "paused" the relay would reject`,
      ),
    );

    const newRequired = await mutated((defs) => {
      const p = v2(defs, "ThreadQueueAddParams");
      (p.properties as Obj).priority = { type: "integer" };
      (p.required as string[]).push("priority");
    });
    assert.ok(
      driftProblems(newRequired).some((p) =>
        p.startsWith("request thread/queue/add: sent $: required field priority is missing")
      ),
    );

    const renamed = await mutated((defs) => {
      const props = v2(defs, "ThreadTurnsListParams").properties as Obj;
      props.view = props.itemsView;
      delete props.itemsView;
    });
    assert.ok(
      driftProblems(renamed).some((p) =>
        p === "request thread/turns/list: sent $: field itemsView is not declared by the schema"
      ),
      driftProblems(renamed).join("\n"),
    );

    const retyped = await mutated((defs) => {
      (v2(defs, "Thread").properties as Obj).updatedAt = { type: "string" };
    });
    assert.ok(
      driftProblems(retyped).includes(
        "result thread/list data[].updatedAt: the schema allows string, the relay expects number",
      ),
    );

    const widened = await mutated((defs) => {
      (v2(defs, "RequestPermissionProfile").properties as Obj).camera = { type: "boolean" };
    });
    assert.ok(
      driftProblems(widened).includes(
        "serverRequest item/permissions/requestApproval permissions → answer " +
          "item/permissions/requestApproval permissions: the types differ, so it cannot be " +
          "passed back unchanged",
      ),
      driftProblems(widened).join("\n"),
    );

    const gone = await mutated((defs) => {
      const u = defs.ServerRequest as Obj;
      u.oneOf = (u.oneOf as Obj[]).filter((e) =>
        ((e.properties as Obj).method as Obj).enum instanceof Array &&
        (((e.properties as Obj).method as Obj).enum as string[])[0] !==
          "item/tool/requestUserInput"
      );
    });
    assert.ok(
      driftProblems(gone).includes(
        "serverRequest item/tool/requestUserInput: item/tool/requestUserInput is not in ServerRequest",
      ),
    );
  },
});

Deno.test({
  name:
    "drift: a value the release has where the relay classifies, missing from the relay's table, fails the check",
  ignore: BIN === null,
  async fn() {
    const doc = await schema();
    let checked = 0;
    for (const row of RELIED_ON) {
      if (!("classified" in row) || "methodsOf" in row) continue;
      const schemaAt = locate(doc, row.at);
      assert.ok(typeof schemaAt !== "string", schemaAt as string);
      const present = doc.resolve(schemaAt, row.path);
      if (present === null && row.optional) continue; // e.g. 0.169 has no display mode
      const values = row.classified.filter((v) =>
        driftProblems(doc, [{ ...row, classified: row.classified.filter((c) => c !== v) }])
          .includes(
            `${label(row.at)} ${row.path}: new value ${
              JSON.stringify(v)
            } the relay does not classify`,
          )
      );
      assert.ok(values.length > 0, `${label(row.at)} ${row.path}: the check sees the values`);
      checked++;
    }
    assert.ok(checked >= 4, `classified rows checked: ${checked}`);
    const methods = RELIED_ON.find((r) => "methodsOf" in r) as MethodsRow;
    assert.deepEqual(
      driftProblems(doc, [{ ...methods, classified: methods.classified.slice(1) }]),
      [`ServerRequest: new method ${methods.classified[0]} the relay does not classify`],
    );

    const newKind = await mutated((defs) => {
      ((v2(defs, "CodexErrorInfo").anyOf as Obj[])[0].enum as string[]).push("quantumPolicy");
    });
    assert.ok(
      driftProblems(newKind).includes(
        `notification turn/completed turn.error.codexErrorInfo: new value "quantumPolicy" the relay does not classify`,
      ),
      driftProblems(newKind).join("\n"),
    );
    const newMode = await mutated((defs) => {
      const p = defs.McpServerElicitationRequestParams as Obj;
      (p.oneOf as Obj[]).push({
        properties: { mode: { enum: ["openai/faceScan"], type: "string" } },
        required: ["mode"],
        type: "object",
      });
    });
    assert.ok(
      driftProblems(newMode).some((p) =>
        p.includes(`mode: new value "openai/faceScan" the relay does not classify`)
      ),
      driftProblems(newMode).join("\n"),
    );
    const newMethod = await mutated((defs) => {
      const u = defs.ServerRequest as Obj;
      const copy = structuredClone((u.oneOf as Obj[])[0]);
      ((copy.properties as Obj).method as Obj).enum = ["item/camera/requestApproval"];
      (u.oneOf as Obj[]).push(copy);
    });
    assert.ok(
      driftProblems(newMethod).includes(
        "ServerRequest: new method item/camera/requestApproval the relay does not classify",
      ),
    );
  },
});
