/**
 * The groups of `deno task mutate`: each names the modules (whole files, or
 * named functions of a big one) that keep a promise of docs/design.md, the
 * fast unit tests that guard them (each mutant runs only these), and the
 * surviving mutants that are equivalent, each with its reason. A survivor
 * not listed here fails the group's target (90%) or is a missing test.
 * @module
 */

import type { Group } from "./mutate_select.ts";
import { REFUSED_METHODS } from "../src/elicit/mappings.ts";

const DAEMON = "src/connect/daemon/daemon_connection.ts";
const WAIT_REPLY = "src/ops/wait_reply.ts";
const LIVENESS = "src/connect/daemon/liveness.ts";
/** Why a heartbeat guard's mutant changes nothing a caller sees. */
const LIVENESS_GUARD =
  "defence in depth: the timer is cancelled when the last user leaves or the connection dies, and a ping in flight is shared";
const STDIO = "src/host/stdio_transport.ts";
const PROCESS_GROUP = "src/connect/process/process_group.ts";
const HELPER_PROCESS = "src/connect/process/helper_process.ts";
/** Why signalGroup's catch survives: no test can make /bin/kill fail to start. */
const KILL_UNSPAWNED =
  "reached only when /bin/kill cannot be started (missing from the machine, or past its 500 ms bound), which no test can arrange; an undefined answer is falsy like false";

const READ_REPLY = "src/ops/read_reply.ts";
/** Why the message of an error that fails a read is not seen. */
const FAILED_READ =
  "readReply() never throws: a failed read is an unavailable result that carries the error's reason, never its message";

const CURSOR = "src/reply/cursor.ts";
/** Why a cursor text that is not a string, or is empty, is refused without its early check. */
const NOT_A_TEXT =
  "a text that is not a string never equals the re-encoded cursor (a string) and most throw first (no length, not iterable); the empty text decodes to no bytes and JSON.parse('') throws; decodeCursor turns every throw into invalid_cursor";
/** Why canonicalize's object check is masked for every value JSON.parse gives. */
const NOT_AN_OBJECT =
  "a number, string, boolean or array from JSON.parse has no own v of 1 and fails the field checks; null throws at o.v, which decodeCursor turns into invalid_cursor; encodeCursor's callers pass object literals";
/** Why a lenient UTF-8 decoder changes no outcome. */
const CANONICAL_TEXT =
  "a text is accepted only when it equals the encoding of the data it parsed to, which is UTF-8 without a BOM: invalid UTF-8 (read as U+FFFD) or a stripped BOM re-encodes to another text, refused";

/**
 * Why the refused methods' list survives its mutants: nothing at run time reads
 * it (every method outside ROUTED_METHODS is refused); it names the methods the
 * drift check (tests/e2e/drift_test.ts, against the real Codex schema) expects
 * to be classified, so that check, not a fast test, guards it.
 */
const REFUSED_LIST =
  "read only by the drift check against the real Codex schema (tests/e2e/drift_test.ts): the router refuses every method outside ROUTED_METHODS whatever this list holds";

/** The groups, by name. */
export const GROUPS: Record<string, Group> = {
  // The replies, in four groups of one concern each (one group of all ran 1,002 mutants
  // against all ten reply tests: about 26 minutes here).
  "reply-cursor": {
    promise: "reply cursors: opaque, bound to their message, refused when forged or stale",
    mutate: ["src/reply/cursor.ts", "src/reply/_base64url.ts"],
    tests: [
      "tests/unit/reply_cursor_test.ts",
      "tests/unit/reply_edges_test.ts",
      "tests/unit/reply_read_flow_test.ts",
      "tests/unit/reply_result_test.ts",
    ],
    equivalent: [
      {
        file: "src/reply/_base64url.ts",
        mutator: "EqualityOperator",
        replacement: "i <= bytes.length",
        line: "for (let i = 0; i < bytes.length; i += 3) {",
        reason:
          "at i = bytes.length (a length that is a multiple of 3) no byte is left: that round writes Math.ceil(0) = 0 characters",
      },
      ...[["ConditionalExpression", "false"], [
        "LogicalOperator",
        'typeof text !== "string" && text.length === 0',
      ]].map(([mutator, replacement]) => ({
        file: CURSOR,
        mutator,
        replacement,
        line: 'if (typeof text !== "string" || text.length === 0) return null;',
        reason: NOT_A_TEXT,
      })),
      {
        file: CURSOR,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (bytes === null) return null;",
        reason:
          "TextDecoder's decode(null) throws a TypeError: decodeCursor makes it invalid_cursor",
      },
      ...[["ObjectLiteral", "{}"], ["BooleanLiteral", "false"]].map(([mutator, replacement]) => ({
        file: CURSOR,
        mutator,
        replacement,
        line:
          'const json = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);',
        reason: CANONICAL_TEXT,
      })),
      {
        file: CURSOR,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (data === null) return null;",
        reason: "data.threadId then throws a TypeError: decodeCursor makes it invalid_cursor",
      },
      ...[
        ["ConditionalExpression", "false"],
        [
          "LogicalOperator",
          '(typeof value !== "object" || value === null) && Array.isArray(value)',
        ],
        ["LogicalOperator", 'typeof value !== "object" && value === null'],
      ].map(([mutator, replacement]) => ({
        file: CURSOR,
        mutator,
        replacement,
        line:
          'if (typeof value !== "object" || value === null || Array.isArray(value)) return null;',
        reason: NOT_AN_OBJECT,
      })),
      {
        file: CURSOR,
        mutator: "ConditionalExpression",
        replacement: "true",
        line: 'if (o.kind === "search") {',
        reason:
          "another kind than reply would be copied as search: the text differs from that data's encoding, refused; encodeCursor's callers pass reply or search",
      },
      {
        file: CURSOR,
        mutator: "MethodExpression",
        replacement: "wanted.some(k => keys.includes(k))",
        line: "return keys.length === wanted.length && wanted.every((k) => keys.includes(k));",
        reason:
          "every wanted key's value is checked (v, kind, the ids, lastItemId null or an id, appCursor): with as many keys as wanted, a missing one is undefined there, refused",
      },
    ],
  },
  "reply-project": {
    promise: "a reply is the final_answer text of the message's own turn, bounded and moderated",
    mutate: [
      "src/reply/project_replies.ts",
      "src/reply/match_user_item.ts",
      "src/reply/moderation.ts",
      "src/reply/utf8_truncate.ts",
      "src/reply/turn_status.ts",
      "src/reply/read_result.ts",
      "src/reply/schemas.ts",
    ],
    tests: [
      "tests/unit/reply_project_test.ts",
      "tests/unit/reply_match_test.ts",
      "tests/unit/reply_moderation_test.ts",
      "tests/unit/reply_result_test.ts",
      "tests/unit/reply_turn_status_test.ts",
      "tests/unit/reply_read_test.ts",
      "tests/unit/reply_read_flow_test.ts",
      "tests/unit/reply_edges_test.ts",
      "tests/unit/readme_tools_test.ts",
    ],
  },
  "reply-read": {
    promise: "codex_read_reply: bounded, cursor-paged reads of the stored replies",
    mutate: ["src/ops/read_reply.ts"],
    tests: [
      "tests/unit/reply_read_test.ts",
      "tests/unit/reply_read_flow_test.ts",
      "tests/unit/reply_edges_test.ts",
    ],
    equivalent: [
      ...[["ObjectLiteral", "{}"], ["StringLiteral", '""']].map(([mutator, replacement]) => ({
        file: READ_REPLY,
        mutator,
        replacement,
        line: 'if (input.cursor === undefined) return { kind: "fresh" };',
        reason:
          'read() asks only whether the start is "reply" or "search": any other start reads afresh',
      })),
      ...[
        `"The cursor's user message is no longer`,
        `throw new RelayError("protocol_error", "The app-server's page of the turn`,
      ].map((line) => ({
        file: READ_REPLY,
        mutator: "StringLiteral",
        replacement: '""',
        line,
        reason: FAILED_READ,
      })),
    ],
  },
  "reply-wait": {
    promise: "codex_wait_reply: waits within its bound, on one message or several (any/all)",
    mutate: [WAIT_REPLY, "src/reply/wait_set.ts"],
    tests: [
      "tests/unit/reply_wait_test.ts",
      "tests/unit/wait_set_test.ts",
      "tests/unit/reply_edges_test.ts",
    ],
    equivalent: [
      {
        file: WAIT_REPLY,
        mutator: "ConditionalExpression",
        replacement: "true",
        line:
          "return result.replies.length > 0 || (result.turn !== null && isTerminal(result.turn.status));",
        reason:
          "an observed read always carries its turn (buildReadResult): the check only narrows the type",
      },
      {
        file: WAIT_REPLY,
        mutator: "BooleanLiteral",
        replacement: "false",
        line: "...unavailableRead(input, abortReason(session.signal, true).reason),",
        reason: "only the reason reaches the result: the error's written flag is dropped",
      },
      {
        file: WAIT_REPLY,
        mutator: "ObjectLiteral",
        replacement: "{}",
        line: 'signal.addEventListener("abort", onAbort, { once: true });',
        reason: "a signal aborts once, and the pause removes its listener whichever way it ends",
      },
      {
        file: WAIT_REPLY,
        mutator: "BooleanLiteral",
        replacement: "false",
        line: 'signal.addEventListener("abort", onAbort, { once: true });',
        reason: "a signal aborts once, and the pause removes its listener whichever way it ends",
      },
    ],
  },
  elicit: {
    // The router (tokens, routing) is own-requests' group, with its equivalents.
    promise: "elicitation: what each server request becomes for the client, and answer validation",
    mutate: ["src/elicit/mappings.ts", "src/elicit/validate_answer.ts"],
    tests: ["tests/unit/elicit_*_test.ts"],
    equivalent: [
      {
        file: "src/elicit/mappings.ts",
        mutator: "ArrayDeclaration",
        replacement: "[]",
        line: "export const REFUSED_METHODS: ReadonlySet<string> = new Set([",
        reason: REFUSED_LIST,
      },
      ...[...REFUSED_METHODS].map((method) => ({
        file: "src/elicit/mappings.ts",
        mutator: "StringLiteral",
        replacement: '""',
        line: `"${method}",`,
        reason: REFUSED_LIST,
      })),
      {
        file: "src/elicit/mappings.ts",
        mutator: "ArrayDeclaration",
        replacement: '["Stryker was here"]',
        line: "const persist = Array.isArray(meta.persist) ? meta.persist : [];",
        reason: 'a default that holds neither "session" nor "always" offers what [] offers',
      },
      {
        file: "src/elicit/validate_answer.ts",
        mutator: "ConditionalExpression",
        replacement: "false",
        line: 'if (typeof value !== "number" || !Number.isFinite(value)) return',
        reason:
          "Number.isFinite is false for every value that is not a number (it does not coerce)",
      },
      {
        file: "src/elicit/validate_answer.ts",
        mutator: "ConditionalExpression",
        replacement: "false",
        line: 'if (items && value.some((v) => typeof v !== "string" || !items.includes(v))) {',
        reason: "the allowed items are strings, so a value that is not one is never included",
      },
    ],
  },
  capabilities: {
    promise:
      "the capability levels (the method map's levels) and the allowlist every backend checks",
    mutate: [
      "src/core/capabilities.ts",
      "src/codex/methods.ts",
      { file: "src/connect/operation_frame.ts", functions: ["checkAllowed"] },
    ],
    tests: ["tests/unit/capabilities_test.ts", "tests/unit/methods_test.ts"],
    equivalent: [
      {
        file: "src/connect/operation_frame.ts",
        mutator: "ObjectLiteral",
        replacement: "{}",
        line:
          'throw new RelayError("not_allowed", `${method} is not allowed at this capability level`, {',
        reason: "written: false is RelayError's default",
      },
      {
        file: "src/codex/methods.ts",
        mutator: "BooleanLiteral",
        replacement: "false",
        line: "const _sameKeys: Same<Method, keyof MethodParams> = true;",
        reason:
          "a compile-time check (deno check fails on it); nothing reads the value at run time",
      },
    ],
  },
  receipts: {
    promise: "codex_queue_message: a receipt says only what Codex confirmed",
    mutate: ["src/ops/queue_message.ts"],
    tests: ["tests/unit/queue_message_tool_test.ts"],
    equivalent: [
      {
        file: "src/ops/queue_message.ts",
        mutator: "ObjectLiteral",
        replacement: "{}",
        line: "return new RelayError(e.reason, e.message, { written: false, rpcCode: e.rpcCode });",
        reason:
          "written: false is the default, and the receipt built from this error reads only its reason, message and written",
      },
    ],
  },
  "run-options": {
    promise: "codex_run's sandbox and approvalPolicy may only tighten the thread's settings",
    mutate: [
      "src/turn/run_options.ts",
      { file: "src/codex/validate.ts", functions: ["parseRunConfig"] },
    ],
    tests: ["tests/unit/run_options_test.ts"],
    equivalent: [
      ...["sandbox", "approvalPolicy"].map((option) => ({
        file: "src/turn/run_options.ts",
        mutator: "ConditionalExpression",
        replacement: "true",
        line: `if (options.${option} !== undefined) {`,
        reason: "an unset option ranks -1 (indexOf(undefined)), never looser than anything",
      })),
      {
        file: "src/turn/run_options.ts",
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "const at = value === null ? -1 : order.indexOf(value);",
        reason: "indexOf(null) is -1 too: the null test only says so",
      },
      {
        file: "src/turn/run_options.ts",
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "const at = (order: readonly string[], v: string | null) => v === null ? -1",
        reason: "indexOf(null) is -1 too: the null test only says so",
      },
      {
        file: "src/turn/run_options.ts",
        mutator: "EqualityOperator",
        replacement: "order.indexOf(a) < order.indexOf(b)",
        line: "a === undefined ? b : b === undefined ? a : order.indexOf(a) <= order.indexOf(b)",
        reason: "equal ranks are the same value: a or b is the same setting",
      },
    ],
  },
  "own-requests": {
    promise:
      "a runtime takes only its own turn's server requests, once; answers reach their runtime",
    mutate: ["src/turn/own_requests.ts", "src/elicit/router.ts"],
    tests: [
      "tests/unit/own_requests_test.ts",
      "tests/unit/elicit_*_test.ts",
      "tests/unit/promises_test.ts",
    ],
    equivalent: [
      {
        file: "src/elicit/router.ts",
        mutator: "ConditionalExpression",
        replacement: "true",
        line: 'const p = typeof params === "object" && params !== null',
        reason: "a primitive passing as params reads as {} does: every property undefined",
      },
      {
        file: "src/elicit/router.ts",
        mutator: "ConditionalExpression",
        replacement: "false",
        line: 'forward.kind === "url" ? urlAnswer(answer.action) : refusalAnswer(',
        reason:
          "only mcpServer/elicitation/request is url-kind, and its refusal is urlAnswer's shape",
      },
      {
        file: "src/elicit/router.ts",
        mutator: "StringLiteral",
        replacement: '""',
        line: 'forward.kind === "url" ? urlAnswer(answer.action) : refusalAnswer(',
        reason:
          "only mcpServer/elicitation/request is url-kind, and its refusal is urlAnswer's shape",
      },
      {
        file: "src/elicit/router.ts",
        mutator: "ConditionalExpression",
        replacement: "true",
        line: 'if (forward.kind === "form") {',
        reason:
          "a pending entry is url or form (unsupported ones are declined at once): past url, form",
      },
      {
        file: "src/elicit/router.ts",
        mutator: "StringLiteral",
        replacement: '""',
        line: 'return "unknown_token";',
        reason: "unreachable: no pending entry is of another kind than url or form",
      },
      {
        file: "src/elicit/router.ts",
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (!entry) return;",
        reason:
          "the deadline timer is cancelled whenever its entry is retired: it never finds none",
      },
    ],
  },
  attach: {
    promise: "attaching to a running turn never resumes a thread the daemon has not loaded",
    mutate: ["src/turn/turn_attach.ts"],
    tests: ["tests/unit/turn_attach_test.ts", "tests/unit/promises_test.ts"],
  },
  resolve: {
    promise: "a thread is named by its id or its exact, unique name",
    mutate: ["src/ops/resolve_thread.ts"],
    tests: ["tests/unit/resolve_thread_test.ts", "tests/unit/promises_test.ts"],
    equivalent: [
      {
        file: "src/ops/resolve_thread.ts",
        mutator: "EqualityOperator",
        replacement: "matches.length >= 1",
        line: "if (matches.length > 1) {",
        reason: "it follows `matches.length === 1) return`: here the count is 0 or at least 2",
      },
      {
        file: "src/ops/resolve_thread.ts",
        mutator: "ObjectLiteral",
        replacement: "{}",
        line: "return new RelayError(e.reason, e.message, { written: false });",
        reason: "a RelayError is not written unless told: { written: false } is the default",
      },
    ],
  },
  withdraw: {
    promise: "codex_withdraw_message deletes only this relay's messages, with an honest receipt",
    mutate: ["src/ops/withdraw_message.ts"],
    tests: ["tests/unit/withdraw_message_test.ts"],
  },
  stdio: {
    promise:
      "one MCP message is bounded; stdin stops at the bounds of unanswered requests and bytes",
    mutate: ["src/host/stdio_transport.ts", "src/host/wire_budget.ts"],
    tests: [
      "tests/unit/stdio_transport_test.ts",
      "tests/unit/stdio_frames_test.ts",
      "tests/unit/wire_budget_test.ts",
    ],
    equivalent: [
      {
        file: STDIO,
        mutator: "BooleanLiteral",
        replacement: "true",
        line: "#write(line: string, answer = false): Promise<void> {",
        reason: "every caller says whether it writes an answer",
      },
      {
        file: STDIO,
        mutator: "OptionalChaining",
        replacement: "this.onerror(error instanceof Error ? error : new Error(String(error)))",
        line: "this.onerror?.(",
        reason: "a stdout that failed once is errored for good: every later write fails either way",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (full === undefined) return;",
        reason: "room() resolves at once when no bound is reached",
      },
      {
        file: STDIO,
        mutator: "ObjectLiteral",
        replacement: "{}",
        line: "const held = {",
        reason: "only logged",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "true",
        line: "if (this.#budget.full !== undefined) await this.#roomToRead();",
        reason: "#roomToRead() returns at once when no bound is reached",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (this.#closed) return;",
        occurrence: 1,
        reason: "close() cancels the reader: the next read is done",
      },
      {
        file: STDIO,
        mutator: "EqualityOperator",
        replacement: "start <= value.length",
        line: "while (start < value.length) {",
        reason: "at a chunk's end the piece is empty: nothing is added",
      },
      {
        file: STDIO,
        mutator: "MethodExpression",
        replacement: "seen.subarray(0, SNIFF_BYTES)",
        line: "head: seen.subarray(0, SNIFF_BYTES).slice(),",
        reason: "a copy of bytes no one writes to again",
      },
      {
        file: STDIO,
        mutator: "MethodExpression",
        replacement: "lastBytes(seen, SNIFF_BYTES)",
        line: "tail: lastBytes(seen, SNIFF_BYTES).slice(),",
        reason: "a copy of bytes no one writes to again",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "true",
        line: "if (skipping.head.length < SNIFF_BYTES) {",
        reason: "a full head takes piece.subarray(0, 0): nothing",
      },
      {
        file: STDIO,
        mutator: "EqualityOperator",
        replacement: "skipping.head.length <= SNIFF_BYTES",
        line: "if (skipping.head.length < SNIFF_BYTES) {",
        reason: "a full head takes piece.subarray(0, 0): nothing",
      },
      {
        file: STDIO,
        mutator: "MethodExpression",
        replacement: "piece",
        line: "parts.push(piece.slice());",
        reason: "stdin's chunks are never written to again",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "const line = parts.length === 0",
        reason: "concatenating one piece gives the same bytes",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "true",
        line: "if (!this.#closed) {",
        reason: "only a log line",
      },
      {
        file: STDIO,
        mutator: "BlockStatement",
        replacement: "{}",
        line: "} finally {",
        reason: "the lock of a stream that ended or was cancelled is never taken again",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: 'if (text.endsWith("\\r")) text = text.slice(0, -1);',
        reason: "JSON.parse and trim() ignore a trailing CR anyway",
      },
      {
        file: STDIO,
        mutator: "MethodExpression",
        replacement: 'text.startsWith("\\r")',
        line: 'if (text.endsWith("\\r")) text = text.slice(0, -1);',
        reason: "JSON.parse and trim() ignore a trailing CR anyway",
      },
      {
        file: STDIO,
        mutator: "MethodExpression",
        replacement: "text",
        line: 'if (text.endsWith("\\r")) text = text.slice(0, -1);',
        reason: "JSON.parse and trim() ignore a trailing CR anyway",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (this.#closed) return;",
        occurrence: 3,
        reason: "reading stops at close: no refusal is made after it",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "const error = data === undefined",
        reason: "JSON.stringify drops data: undefined",
      },
      {
        file: STDIO,
        mutator: "LogicalOperator",
        replacement: 'typeof id === "number" || Number.isFinite(id)',
        line: 'return typeof id === "string" || (typeof id === "number" && Number.isFinite(id))',
        reason:
          "only 1e999 (Infinity) tells them apart: JSON.stringify writes it as null, and cancelling it cancels nothing",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "true",
        line: 'return typeof id === "string" || (typeof id === "number" && Number.isFinite(id))',
        reason:
          "only 1e999 (Infinity) tells them apart: JSON.stringify writes it as null, and cancelling it cancels nothing",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (raw === undefined) return null;",
        reason: "JSON.parse(undefined) throws, and the catch returns null",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "true",
        line: "if (cancelled !== null) this.#budget.cancel(cancelled);",
        reason: "no request of id null is ever owed: it is refused before it is read",
      },
      {
        file: STDIO,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "return bytes.length <= n ? bytes : bytes.subarray(bytes.length - n);",
        reason: "subarray(length - n) of at most n bytes is all of them",
      },
      {
        file: STDIO,
        mutator: "EqualityOperator",
        replacement: "bytes.length < n",
        line: "return bytes.length <= n ? bytes : bytes.subarray(bytes.length - n);",
        reason: "subarray(length - n) of at most n bytes is all of them",
      },
    ],
  },
  daemon: {
    promise:
      "the daemon connection's bounds; a lost daemon ends every view at once, never written to",
    mutate: [
      // Its operations, views and loss handling; the constructor's wiring of the real proxy
      // (dialProxy, its defaults) is what tests/integration/daemon_connection_test.ts runs.
      {
        file: "src/connect/daemon/daemon_connection.ts",
        functions: [
          "operation",
          "hold",
          "kill",
          "shutdown",
          "#usable",
          "#connected",
          "#open",
          "#close",
          "busy",
          "asError",
        ],
      },
      "src/connect/daemon/liveness.ts",
      "src/connect/held_view.ts",
      "src/connect/thread_routing.ts",
    ],
    tests: [
      "tests/unit/daemon_bounds_test.ts",
      "tests/unit/daemon_loss_test.ts",
      "tests/unit/daemon_views_test.ts",
      "tests/unit/thread_views_test.ts",
      "tests/unit/liveness_test.ts",
      "tests/unit/liveness_use_test.ts",
    ],
    equivalent: [
      {
        file: DAEMON,
        mutator: "ObjectLiteral",
        replacement: "{}",
        line: "const rpc = new RpcConnection(dialed.transport, this.#clock, {",
        reason:
          "the routing always listens for server requests, so none is unhandled; calls fail with the transport's own closing error",
      },
      {
        file: DAEMON,
        mutator: "BooleanLiteral",
        replacement: "true",
        line: "answerUnhandled: false,",
        reason: "the routing always listens for server requests, so none is unhandled",
      },
      {
        file: DAEMON,
        mutator: "ConditionalExpression",
        replacement: "true",
        line: "if (this.#live === live) this.#live = undefined;",
        reason:
          "no newer connection is set before the old one's handlers ran: opening awaits initialize",
      },
      {
        file: DAEMON,
        mutator: "EqualityOperator",
        replacement: "this.#live !== live",
        line: "if (this.#live === live) this.#live = undefined;",
        reason:
          "no newer connection is set before the old one's handlers ran: opening awaits initialize",
      },
      {
        file: DAEMON,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (this.#shutdown.signal.aborted) {",
        reason:
          "shutdown() awaits the opening and closes what it opened; the caller's race has rejected already",
      },
      {
        file: DAEMON,
        mutator: "BlockStatement",
        replacement: "{}",
        line: "if (this.#shutdown.signal.aborted) {",
        reason:
          "shutdown() awaits the opening and closes what it opened; the caller's race has rejected already",
      },
      {
        file: DAEMON,
        mutator: "ObjectLiteral",
        replacement: "{}",
        line: "{ written: false },",
        reason:
          "hold's timeout reaches the caller through abortReason(signal, false), which sets written",
      },
      {
        file: DAEMON,
        mutator: "BooleanLiteral",
        replacement: "true",
        line: "{ written: false },",
        reason:
          "hold's timeout reaches the caller through abortReason(signal, false), which sets written",
      },
      {
        file: DAEMON,
        mutator: "ArrayDeclaration",
        replacement: "[]",
        line: "await Promise.all([...this.#closings]);",
        reason:
          "the fake's connections close at once; waiting for a proxy's exit is the integration tests'",
      },
      {
        file: DAEMON,
        mutator: "ObjectLiteral",
        replacement: "{}",
        line: 'signal.addEventListener("abort", onAbort, { once: true });',
        reason: "the listener is removed when the race settles: a second abort never reaches it",
      },
      {
        file: DAEMON,
        mutator: "BooleanLiteral",
        replacement: "false",
        line: 'signal.addEventListener("abort", onAbort, { once: true });',
        reason: "the listener is removed when the race settles: a second abort never reaches it",
      },
      {
        file: DAEMON,
        mutator: "BlockStatement",
        replacement: "{}",
        line: "} finally {",
        reason: "a listener left on the signal rejects a race that has settled: nothing happens",
      },
      {
        file: DAEMON,
        mutator: "StringLiteral",
        replacement: '""',
        line: 'signal.removeEventListener("abort", onAbort);',
        reason: "a listener left on the signal rejects a race that has settled: nothing happens",
      },
      {
        file: DAEMON,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (this.#shutdown.signal.aborted) throw abortReason(this.#shutdown.signal, false);",
        reason:
          "every caller's signal includes shutdown's, and #connected checks it before opening",
      },
      {
        file: DAEMON,
        mutator: "BooleanLiteral",
        replacement: "true",
        line: "if (this.#shutdown.signal.aborted) throw abortReason(this.#shutdown.signal, false);",
        reason:
          "every caller's signal includes shutdown's, and #connected checks it before opening",
      },
      {
        file: DAEMON,
        mutator: "StringLiteral",
        replacement: '""',
        line: 'lostReason: "connection_lost",',
        reason:
          "calls fail with the transport's own closing error (connection_lost), not this default",
      },
      {
        file: DAEMON,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (this.#live === live) this.#live = undefined;",
        reason:
          "a failed connection left as the current one is never used: every caller checks rpc.failure",
      },
      {
        file: DAEMON,
        mutator: "BooleanLiteral",
        replacement: "true",
        line: "await this.#close(live, abortReason(this.#shutdown.signal, false));",
        reason: "the caller sees #connected's abortReason(signal, false), not this one",
      },
      {
        file: DAEMON,
        mutator: "BooleanLiteral",
        replacement: "true",
        line: "throw abortReason(this.#shutdown.signal, false);",
        reason: "the caller sees #connected's abortReason(signal, false), not this one",
      },
      {
        file: DAEMON,
        mutator: "ArrowFunction",
        replacement: "() => undefined",
        line: "void closing.finally(() => this.#closings.delete(closing));",
        reason: "a settled closing left in the set is waited for at once",
      },
      {
        file: DAEMON,
        mutator: "StringLiteral",
        replacement: '""',
        line:
          ': new RelayError("connection_lost", error instanceof Error ? error.message : String(error));',
        reason: "initialize fails with RelayErrors only (rpc_error, timeout, connection_lost)",
      },
      {
        file: LIVENESS,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (this.#timer || this.#dead || this.#users === 0) return;",
        reason: LIVENESS_GUARD,
      },
      {
        file: LIVENESS,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (this.#dead || this.#users === 0) return;",
        reason: LIVENESS_GUARD,
      },
      {
        file: LIVENESS,
        mutator: "LogicalOperator",
        replacement: "this.#dead && this.#users === 0",
        line: "if (this.#dead || this.#users === 0) return;",
        reason: LIVENESS_GUARD,
      },
      ...[["ConditionalExpression", "false"], [
        "EqualityOperator",
        "this.#watchers.get(threadId) !== set",
      ]]
        .map(([mutator, replacement]) => ({
          file: "src/connect/thread_routing.ts",
          mutator,
          replacement,
          line: "if (set.size === 0 && this.#watchers.get(threadId) === set)",
          reason: "an empty set left in the map routes nothing (and is reused by the next watch)",
        })),
      {
        file: "src/connect/thread_routing.ts",
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (threadId === undefined) return;",
        occurrence: 1,
        reason: "there are no watchers of thread undefined",
      },
    ],
  },
  reap: {
    promise: "a helper's whole process group ends with it, within the reap bound",
    contained:
      "its mutants run /bin/kill with mutated group ids: two uncontained runs on 2026-12-01 killed every process on the machine",
    mutate: [
      PROCESS_GROUP,
      {
        file: "src/connect/process/helper_process.ts",
        functions: [
          "reap",
          "#reap",
          "kill",
          "#signal",
          "#killLeader",
          "#exitWithin",
          "settlesWithin",
        ],
      },
    ],
    tests: ["tests/unit/process_group_test.ts"],
    equivalent: [
      ...[
        ["ConditionalExpression", "false"],
        ["StringLiteral", '""'],
        ["BooleanLiteral", "true"],
      ].map(([mutator, replacement]) => ({
        file: PROCESS_GROUP,
        mutator,
        replacement,
        line: 'if (Deno.build.os === "windows") return false;',
        reason: "Windows' branch: the mutation run is on Linux, where the condition is false",
      })),
      {
        file: PROCESS_GROUP,
        mutator: "MethodExpression",
        replacement: "signal",
        line: "return [`-${signal.slice(3)}`",
        reason:
          "procps-ng and util-linux kill take -SIGTERM as -TERM; the short name is kept for BSD kill",
      },
      ...[["BlockStatement", "{}", "} catch {"], ["BooleanLiteral", "true", "return false;"]].map((
        [mutator, replacement, line],
      ) => ({
        file: PROCESS_GROUP,
        mutator,
        replacement,
        line,
        reason: KILL_UNSPAWNED,
      })),
      {
        file: HELPER_PROCESS,
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "if (this.#exited) return true;",
        reason: "an exited helper's status is resolved: it wins the race at once",
      },
      {
        file: HELPER_PROCESS,
        mutator: "ArrowFunction",
        replacement: "() => undefined",
        line: "return await Promise.race([this.status.then(() => true as const), timeout]);",
        reason:
          "an exited helper then counts as signalled: the signals that follow reach no process",
      },
      {
        file: HELPER_PROCESS,
        mutator: "ArrowFunction",
        replacement: "() => undefined",
        line:
          "return await Promise.race([promise.then(() => true as const, () => true as const), timeout]);",
        reason:
          "pipes that closed then count as held: the group SIGKILL that follows reaches no process",
      },
    ],
  },
};
