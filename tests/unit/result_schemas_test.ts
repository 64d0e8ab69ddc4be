/**
 * Protects: every tool's `structuredContent` satisfies the `outputSchema` the tool declares (MCP
 * clients validate it) and keeps every field docs/design.md promises (`src/reply/schemas.ts`).
 *
 * Each result here is built by the code that builds it for the tools (run and wait results,
 * reads, parsed reviews, structured answers, receipts, the run book's and the scan's listed runs,
 * thread lists, MCP servers missing); parsing it must give it back whole (zod drops the fields a
 * schema does not declare), and a value the design does not allow is refused.
 */

import assert from "assert";
import type { z } from "zod";
import {
  compactOutput,
  interruptOutput,
  listedRunSchema,
  mcpServerSchema,
  queuedAheadSchema,
  readReplySchema,
  receiptSchema,
  requestSummarySchema,
  reviewFindingSchema,
  reviewSchema,
  runOutput,
  steerOutput,
  structuredSchema,
  threadListSchema,
  threadListWithRunsSchema,
  threadListWorktreeSchema,
  waitMessageSchema,
  waitReplySchema,
  withdrawSchema,
} from "../../src/reply/schemas.ts";
import { THREAD_STATUSES } from "../../src/codex/types.ts";
import { reviewResult } from "../../src/reply/review_text.ts";
import { structuredAnswer } from "../../src/reply/structured.ts";
import { buildReadResult } from "../../src/reply/read_result.ts";
import { WAIT_UNTIL } from "../../src/reply/wait_set.ts";
import { McpStartup, STARTUP_STATUS } from "../../src/turn/mcp_startup.ts";
import { queueMessage } from "../../src/ops/queue_message.ts";
import { listThreads } from "../../src/ops/list_threads.ts";
import { otherRelayRuns } from "../../src/ops/listed_runs.ts";
import { mintRunId } from "../../src/reply/run_id.ts";
import { RelayError } from "../../src/core/errors.ts";
import { type FinishedRun, type Run, RunBook, type RunSnapshot } from "../../src/turn/run_book.ts";
import {
  interruptResult,
  runResult,
  waitResult,
  withdrawnResult,
} from "../../src/turn/run_result.ts";
import { CANCELLED_START } from "../../src/turn/run_state.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { scriptedSession } from "../../testing/scripted_session.ts";

const THREAD = "01a22a5c-6698-7df3-813e-7166a248c477";
const CID = "cid-1";
const TURN = "01a22a5c-66dd-7f43-a294-c1ac8dd820ae";
const SCOPE = { threadId: THREAD, clientMessageId: CID };

/** `schema` accepts `value` and gives it back whole: no field the tool returns is lost. */
function keeps(schema: z.ZodType, value: unknown, label: string): void {
  const parsed = schema.safeParse(value);
  assert.ok(parsed.success, `${label}: refused: ${parsed.error}`);
  assert.deepEqual(parsed.data, value, `${label}: every field is kept`);
}

/** `schema` refuses `value`. */
function refuses(schema: z.ZodType, value: unknown, label: string): void {
  assert.equal(schema.safeParse(value).success, false, `${label}: refused`);
}

/** `value` without `field`. */
function without(value: object, field: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...value };
  delete copy[field];
  return copy;
}

// Codex's rendering of a review with two findings, one without a priority (review_text.ts).
const REVIEW_TEXT = [
  "Two issues.",
  "",
  "Full review comments:",
  "",
  "- [P1] Division by zero \u2014 /w/calc.js:2-4",
  "  b may be 0.",
  "  Check it first.",
  "",
  "- Unused import \u2014 /w/util.js:7-7",
  "  fs is never used.",
].join("\n");

const REVIEW = reviewResult(REVIEW_TEXT, undefined);
const STRICT = {
  type: "object",
  properties: { ok: { type: "boolean" } },
  required: ["ok"],
  additionalProperties: false,
};
const VALID = structuredAnswer(STRICT, '{"ok":true}');
const INVALID = structuredAnswer(STRICT, "not json");
const REPLY = { itemId: "msg-1", text: "Done.", truncated: false };
const MODERATED = { itemId: "msg-2", moderated: true as const, blockReason: "cyber" };

function snapshot(over: Partial<RunSnapshot> = {}): RunSnapshot {
  return {
    threadId: THREAD,
    clientMessageId: CID,
    turnId: TURN,
    phase: "completed",
    itemsCompleted: 3,
    declinedRequests: [],
    queuedAhead: [],
    notes: [],
    ...over,
  };
}

/** A finished run whose replies were read (reply-read level), with `extra` read fields. */
function finished(over: Partial<RunSnapshot>, extra: object = {}): FinishedRun {
  const s = snapshot(over);
  const read = buildReadResult({
    ...SCOPE,
    match: { kind: "observed", turnId: TURN, itemId: "u1" },
    turnStatus: s.phase === "queued" || s.phase === "running" ? "running" : s.phase,
    replies: [REPLY, MODERATED],
    nextCursor: "more",
  });
  return { snapshot: s, replies: { ...read, ...extra } };
}

const RECEIPT = {
  status: "queued" as const,
  clientMessageId: CID,
  threadId: THREAD,
  queuedSubmissionId: "sub-1",
  confirmedBy: "acknowledgement" as const,
};

Deno.test("reviewSchema keeps every finding reviewResult() gives, in codex_run's and codex_read_reply's results", () => {
  assert.equal(REVIEW.findings.length, 2, "the review has both findings");
  assert.deepEqual(REVIEW.findings.map((f) => f.priority), [1, null]);
  for (const finding of REVIEW.findings) keeps(reviewFindingSchema, finding, finding.title);
  keeps(reviewSchema, REVIEW, "the review");
  keeps(reviewSchema, reviewResult(REVIEW_TEXT, undefined, 60), "a review cut at the page bound");
  const run = runResult({ kind: "settled", run: finished({}, { review: REVIEW }) }, RECEIPT);
  assert.deepEqual(run.review, REVIEW);
  keeps(runOutput, run, "codex_review's result");
  const read = buildReadResult({
    ...SCOPE,
    match: { kind: "observed", turnId: TURN, itemId: "u" },
  });
  keeps(readReplySchema, { ...read, review: REVIEW }, "a read of a review");
});

Deno.test("reviewSchema refuses a finding without its file, its lines or its body, or with a fractional line", () => {
  const [finding] = REVIEW.findings;
  for (const field of ["priority", "title", "file", "lineStart", "lineEnd", "body"]) {
    refuses(reviewFindingSchema, without(finding, field), `a finding without ${field}`);
    refuses(reviewSchema, { ...REVIEW, findings: [without(finding, field)] }, `review: ${field}`);
  }
  refuses(reviewFindingSchema, { ...finding, lineStart: 2.5 }, "a fractional line");
  refuses(reviewFindingSchema, { ...finding, priority: "P1" }, "a priority as text");
  for (const field of ["text", "findings", "truncated"]) {
    refuses(reviewSchema, without(REVIEW, field), `a review without ${field}`);
  }
});

Deno.test("structuredSchema keeps a valid answer's value and an invalid one's error, and refuses their mix-ups", () => {
  assert.deepEqual(VALID, { valid: true, value: { ok: true } });
  assert.equal(INVALID.valid, false);
  keeps(structuredSchema, VALID, "a valid answer");
  keeps(structuredSchema, INVALID, "an invalid answer");
  keeps(structuredSchema, structuredAnswer(STRICT, '{"ok":"yes"}'), "an answer off the schema");
  for (const structured of [VALID, INVALID]) {
    const run = runResult({ kind: "settled", run: finished({}, { structured }) }, RECEIPT);
    keeps(runOutput, run, `a structured run's result (valid: ${structured.valid})`);
    const wait = waitResult({ kind: "settled", run: finished({}, { structured }) });
    keeps(waitMessageSchema, wait, `a wait's structured answer (valid: ${structured.valid})`);
  }
  refuses(structuredSchema, { valid: false }, "an invalid answer without its error");
  refuses(structuredSchema, { valid: "true", value: 1 }, "valid as text");
  refuses(structuredSchema, { value: 1 }, "no valid");
});

Deno.test("runOutput keeps every field runResult() builds: failure, requests, queued ahead, notes, MCP servers, replies", () => {
  const startup = new McpStartup(THREAD, [
    { name: "docs", timeoutMs: 10_000 },
    { name: "search", timeoutMs: 10_000 },
    { name: "ok", timeoutMs: 10_000 },
    { name: "slow", timeoutMs: 10_000 },
  ], 0);
  startup.note(STARTUP_STATUS, {
    threadId: THREAD,
    name: "docs",
    status: "failed",
    error: "exit 1",
  });
  startup.note(STARTUP_STATUS, { threadId: THREAD, name: "search", status: "cancelled" });
  startup.note(STARTUP_STATUS, { threadId: THREAD, name: "ok", status: "ready", error: null });
  const mcpServers = startup.missing();
  assert.deepEqual(mcpServers.map((m) => m.status), ["failed", "cancelled", "starting"]);
  for (const m of mcpServers) keeps(mcpServerSchema, m, `an MCP server ${m.status}`);
  const declined = [{ method: "openai/userVerification", summary: "verify the user" }];
  const queuedAhead = [{ clientMessageId: "ahead-1", turnId: TURN }, {
    clientMessageId: null,
    turnId: null,
  }];
  const failing = snapshot({
    phase: "failed",
    failure: { failureClass: "capacity", retryable: true, retryAfterMs: 60_000, fix: "wait" },
    error: "Too many requests",
    declinedRequests: declined,
    queuedAhead,
    notes: ["The turn runs without the tools of MCP server docs (failed: exit 1)"],
  });
  const settled = runResult({ kind: "settled", run: { snapshot: failing } }, RECEIPT);
  assert.deepEqual(Object.keys(settled).sort(), [
    "declinedRequests",
    "error",
    "failureClass",
    "fix",
    "notes",
    "queuedAhead",
    "receipt",
    "retryAfterMs",
    "retryable",
    "threadId",
    "turn",
  ]);
  keeps(runOutput, { ...settled, mcpServers }, "a failed run");
  const pending = [{ method: "item/commandExecution/requestApproval", summary: "rm -rf build" }];
  const running = runResult(
    { kind: "running", snapshot: snapshot({ phase: "running" }), pendingRequests: pending },
    RECEIPT,
  );
  assert.deepEqual(running.pendingRequests, pending);
  keeps(runOutput, running, "a run waiting for an approval");
  const queued = runResult(
    { kind: "running", snapshot: snapshot({ phase: "queued", turnId: null }), pendingRequests: [] },
    { ...RECEIPT, confirmedBy: "queue_list" },
  );
  keeps(runOutput, queued, "a run still queued");
  keeps(
    runOutput,
    runResult({ kind: "settled", run: finished({ phase: "interrupted" }) }, RECEIPT),
    "an interrupted run with its replies",
  );
  keeps(requestSummarySchema, declined[0], "a declined request");
  for (const ahead of queuedAhead) keeps(queuedAheadSchema, ahead, "a message queued ahead");
});

Deno.test("runOutput refuses a turn status no run reports, and MCP servers, requests or messages ahead without their fields", () => {
  const run = runResult({ kind: "settled", run: finished({}) }, RECEIPT);
  for (const status of ["unverified", "inProgress", ""]) {
    refuses(runOutput, { ...run, turn: { id: TURN, status } }, `a run's turn ${status}`);
  }
  refuses(runOutput, { ...run, turn: { status: "completed" } }, "a turn without its id");
  refuses(runOutput, { ...run, failureClass: "overload" }, "a failure class not listed");
  const server = { name: "docs", status: "failed", error: null };
  keeps(mcpServerSchema, server, "a server without an error");
  for (const field of ["name", "status", "error"]) {
    refuses(runOutput, { ...run, mcpServers: [without(server, field)] }, `server: ${field}`);
  }
  for (const status of ["ready", "stopped", ""]) {
    refuses(mcpServerSchema, { ...server, status }, `an MCP server ${status}`);
  }
  const request = { method: "m", summary: "s" };
  for (const field of ["method", "summary"]) {
    refuses(runOutput, { ...run, pendingRequests: [without(request, field)] }, `pending ${field}`);
    refuses(
      runOutput,
      { ...run, declinedRequests: [without(request, field)] },
      `declined ${field}`,
    );
  }
  for (const field of ["clientMessageId", "turnId"]) {
    const ahead = without({ clientMessageId: "a", turnId: "t" }, field);
    refuses(runOutput, { ...run, queuedAhead: [ahead] }, `queuedAhead without ${field}`);
  }
});

Deno.test("receiptSchema keeps every receipt queueMessage() gives, with either confirmation, and refuses others", async () => {
  const ack = scriptedSession({
    "thread/queue/add": () => ({ queuedSubmission: { id: "sub-9", clientUserMessageId: CID } }),
  });
  const lost = () => new RelayError("timeout", "No answer within 12000 ms", { written: true });
  const listed = scriptedSession({
    "thread/queue/add": () => {
      throw lost();
    },
    "thread/queue/list": () => ({
      data: [{ id: "sub-3", clientUserMessageId: CID }],
      nextCursor: null,
    }),
  });
  const unknown = scriptedSession({
    "thread/queue/add": () => {
      throw lost();
    },
    "thread/queue/list": () => ({ data: [], nextCursor: null }),
  });
  const refused = scriptedSession({
    "thread/queue/add": () => {
      throw new RelayError("protocol_error", "refused", { written: false });
    },
  });
  const receipts = [];
  for (const s of [ack, listed, unknown, refused]) {
    receipts.push(await queueMessage(s.session, THREAD, "hi", CID));
  }
  assert.deepEqual(receipts.map((r) => [r.status, r.confirmedBy]), [
    ["queued", "acknowledgement"],
    ["queued", "queue_list"],
    ["unknown", undefined],
    ["not_sent", undefined],
  ]);
  for (const r of receipts) {
    keeps(receiptSchema, r, `a receipt ${r.status}`);
    keeps(runOutput, { receipt: r, threadId: THREAD, turn: null }, `a run's receipt ${r.status}`);
  }
  for (const status of ["sent", ""]) refuses(receiptSchema, { ...RECEIPT, status }, status);
  for (const confirmedBy of ["guess", ""]) {
    refuses(receiptSchema, { ...RECEIPT, confirmedBy }, `confirmed by ${confirmedBy}`);
  }
  for (const field of ["status", "clientMessageId", "threadId"]) {
    refuses(receiptSchema, without(RECEIPT, field), `a receipt without ${field}`);
  }
});

Deno.test("waitMessageSchema and waitReplySchema keep every field waitResult() builds, for one message or several", () => {
  const pending = [{ method: "item/commandExecution/requestApproval", summary: "ls" }];
  const declined = [{ method: "openai/userVerification", summary: "verify" }];
  const open = waitResult({
    kind: "running",
    snapshot: snapshot({ phase: "running", declinedRequests: declined, notes: ["a note"] }),
    pendingRequests: pending,
  });
  assert.deepEqual(open.pendingRequests, pending);
  assert.deepEqual(open.declinedRequests, declined);
  const failed = waitResult({
    kind: "settled",
    run: finished({ phase: "failed", error: "boom", failure: undefined }),
  });
  assert.equal(failed.error, "boom");
  const messages = [open, failed];
  for (const m of messages) {
    keeps(waitMessageSchema, m, `one message ${m.status}`);
    keeps(waitReplySchema, m, `codex_wait_reply of one message ${m.status}`);
  }
  for (const until of WAIT_UNTIL) {
    keeps(waitReplySchema, { until, done: 1, messages }, `several messages until ${until}`);
  }
  refuses(waitReplySchema, { until: "some", done: 1, messages }, "until some");
  refuses(waitReplySchema, { until: "any", done: 0.5, messages }, "a fractional done");
  const untimed = [without(open, "timedOut")];
  refuses(
    waitReplySchema,
    { until: "any", done: 1, messages: untimed },
    "a message without timedOut",
  );
  refuses(waitMessageSchema, without(open, "timedOut"), "one message without timedOut");
});

Deno.test("interruptOutput keeps every field interruptResult() and withdrawnResult() build", () => {
  const interrupted = interruptResult(
    THREAD,
    finished({
      phase: "interrupted",
      notes: [CANCELLED_START],
      failure: { failureClass: "stalled", retryable: false },
      error: "silent",
    }, { structured: INVALID }),
  );
  assert.equal(interrupted.status, "interrupted");
  assert.equal(interrupted.failureClass, "stalled");
  keeps(interruptOutput, interrupted, "an interrupted run");
  keeps(interruptOutput, interruptResult(THREAD, undefined), "no run");
  const withdrawn = withdrawnResult({ status: "unavailable", reason: "timeout", ...SCOPE });
  keeps(interruptOutput, withdrawn, "a withdraw that could not be made");
  const unverified = { ...interrupted, turn: { id: TURN, status: "unverified" } };
  refuses(interruptOutput, unverified, "an interrupted turn unverified");
  refuses(interruptOutput, { ...interrupted, status: "stopped" }, "an interrupt status not listed");
});

Deno.test("steerOutput and withdrawSchema keep their results' every field", () => {
  const steered = { status: "steered", threadId: THREAD, clientMessageId: CID, turnId: TURN };
  keeps(steerOutput, steered, "steered");
  const review = { status: "not_steerable", threadId: THREAD, kind: "review", message: "no" };
  keeps(steerOutput, review, "a review");
  keeps(
    steerOutput,
    { status: "unknown", reason: "timeout", message: "lost", ...SCOPE },
    "unknown",
  );
  refuses(steerOutput, { ...steered, status: "sent" }, "a steer status not listed");
  const w = { status: "unavailable", reason: "timeout", message: "no answer", ...SCOPE };
  keeps(withdrawSchema, w, "a withdraw");
  refuses(withdrawSchema, without(w, "clientMessageId"), "a withdraw without its message");
});

const T0 = Date.parse("2026-12-01T10:00:00.000Z");

Deno.test("listedRunSchema keeps every run the run book lists: waiting with its count, lost since when, ended", () => {
  const clock = new ManualClock();
  const book = new RunBook(clock, () => T0, (r: Run) => r.threadId === "t-wait" ? 2 : 0);
  const moved = (threadId: string, ...events: Parameters<Run["move"]>[0][]) => {
    const run = book.begin(threadId, `m-${threadId}`)!;
    for (const e of events) run.move(e);
    return run;
  };
  moved("t-queued", { kind: "queued" });
  moved("t-wait", { kind: "queued" }, { kind: "turnStarted" });
  moved("t-lost", { kind: "turnStarted" }, { kind: "lost", at: T0 + 5_000 });
  moved("t-done", { kind: "turnStarted" }, { kind: "ended", end: "failed" });
  const runs = book.look();
  assert.deepEqual(runs.map((r) => r.state), [
    "queued",
    "waiting_for_approval",
    "lost",
    "failed",
  ]);
  assert.equal(runs[1].pendingRequests, 2);
  assert.equal(runs[2].lostAt, new Date(T0 + 5_000).toISOString());
  for (const run of runs) keeps(listedRunSchema, run, `a listed run ${run.state}`);
  keeps(listedRunSchema, { ...runs[1], pendingRequests: 1 }, "one request waiting");
});

Deno.test("threadListWorktreeSchema keeps each run's worktree (--allow-worktrees), and refuses a worktree without its branch", () => {
  const worktree = {
    name: "fix-1",
    path: "/home/u/.codex/worktrees/repo/fix-1",
    branch: "codex/fix-1",
    base: "0123abc",
    uncommittedLeftOut: false,
  };
  const run = {
    threadId: "t-1",
    clientMessageId: "m-1",
    state: "running",
    startedAt: new Date(T0).toISOString(),
    worktree,
  };
  const list = { status: "ok", threads: [], nextCursor: null, sources: ["cli"], runs: [run] };
  keeps(threadListWorktreeSchema, list, "a run in a worktree");
  refuses(
    threadListWorktreeSchema,
    { ...list, runs: [{ ...run, worktree: without(worktree, "branch") }] },
    "a worktree without its branch",
  );
});

Deno.test("listedRunSchema keeps another relay's run marked otherRelay, and refuses a count of 0 or otherRelay false", async () => {
  const run = mintRunId();
  const s = scriptedSession({
    "thread/turns/list": () => ({
      data: [{
        id: TURN,
        status: "inProgress",
        error: null,
        startedAt: 1796006990,
        completedAt: null,
        items: [{ type: "userMessage", id: "u1", clientId: run, content: [] }],
      }],
      nextCursor: null,
    }),
  });
  const thread = {
    id: THREAD,
    name: null,
    status: "active" as const,
    updatedAt: 1796006982,
    cwd: null,
    activeFlags: ["waitingOnApproval"],
  };
  const [other] = await otherRelayRuns(s.session, [thread], {
    running: new Set(),
    queuedHere: () => false,
  });
  assert.equal(other.otherRelay, true);
  assert.equal(other.state, "waiting_for_approval");
  keeps(listedRunSchema, other, "another relay's run");
  const mine = { ...SCOPE, state: "waiting_for_approval", pendingRequests: 1, startedAt: null };
  keeps(listedRunSchema, mine, "a run of this relay");
  refuses(listedRunSchema, { ...mine, pendingRequests: 0 }, "no request waiting");
  refuses(listedRunSchema, { ...mine, pendingRequests: 1.5 }, "a fractional count");
  refuses(listedRunSchema, { ...other, otherRelay: false }, "otherRelay false");
  refuses(listedRunSchema, { ...mine, state: "inProgress" }, "a state no run has");
  for (const field of ["threadId", "clientMessageId", "state", "startedAt"]) {
    refuses(listedRunSchema, without(mine, field), `a listed run without ${field}`);
  }
});

Deno.test("threadListSchema keeps every thread listThreads() lists, at each status, with its cwd and runs at the turn-start level", async () => {
  const raw = THREAD_STATUSES.map((type, i) => ({
    id: `t-${type}`,
    name: i === 0 ? null : `thread ${type}`,
    status: { type },
    updatedAt: 1796006982 + i,
    cwd: i === 0 ? null : `/home/me/p${i}`,
  }));
  const s = scriptedSession({ "thread/list": () => ({ data: raw, nextCursor: "next" }) });
  const list = await listThreads(s.session, { limit: 10 });
  assert.deepEqual(list.threads.map((t) => t.status), [...THREAD_STATUSES]);
  assert.deepEqual(list.threads[1].folder, "p1");
  keeps(threadListSchema, list, "the queue-level list");
  const withCwd = await listThreads(s.session, { limit: 10, withCwd: true });
  assert.equal(withCwd.threads[1].cwd, "/home/me/p1");
  const runs = [{ ...SCOPE, state: "running" as const, startedAt: null }];
  keeps(threadListWithRunsSchema, { ...withCwd, runs }, "the turn-start-level list with its runs");
  const unavailable = {
    status: "unavailable",
    reason: "timeout",
    message: "No answer",
    threads: [],
    nextCursor: null,
    sources: list.sources,
  };
  keeps(threadListSchema, unavailable, "a list that could not be read");
  for (const status of ["error", ""]) refuses(threadListSchema, { ...list, status }, status);
  const [thread] = list.threads;
  for (const field of ["id", "name", "status", "updatedAt", "folder"]) {
    refuses(threadListSchema, { ...list, threads: [without(thread, field)] }, `thread: ${field}`);
  }
  refuses(threadListSchema, { ...list, threads: [{ ...thread, status: "busy" }] }, "busy");
  for (const field of ["threads", "nextCursor", "sources"]) {
    refuses(threadListSchema, without(list, field), `a list without ${field}`);
  }
});

Deno.test("compactOutput, codex_compact's declared schema: a run's fields without the message's", () => {
  const fields = [
    "error",
    "failureClass",
    "message",
    "notes",
    "reason",
    "receipt",
    "retryAfterMs",
    "retryable",
    "threadId",
    "turn",
    "usage",
  ];
  assert.deepEqual(Object.keys(compactOutput.shape).sort(), fields);
  for (const f of fields) {
    assert.equal(compactOutput.shape[f as "turn"], runOutput.shape[f as "turn"]);
  }
});
