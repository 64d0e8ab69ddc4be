/**
 * TurnEvents (`src/turn/turn_events.ts`): what a runtime's thread
 * notifications tell it, as the outcomes the runtime acts on: which turn is
 * its own, the messages queued ahead of it, its MCP tool calls, a paused
 * queue, and how its own turn ended (a review's turn claimed after it ended
 * too).
 */

import assert from "assert";
import { TurnEvents } from "../../src/turn/turn_events.ts";
import { STREAM_ERROR_MAX_CHARS, streamErrorText } from "../../src/turn/activity.ts";

const THREAD = "01a22a5b-0000-7000-8000-000000000001";
const MESSAGE = { kind: "message" } as const;
const REVIEW = { kind: "review", target: { type: "uncommittedChanges" } } as const;

function events(job: typeof MESSAGE | typeof REVIEW = MESSAGE) {
  const e = new TurnEvents({ threadId: THREAD, clientMessageId: "mine", job }, null);
  const user = (turnId: string, clientId: string) =>
    e.notification("item/started", {
      threadId: THREAD,
      turnId,
      item: { type: "userMessage", id: `u-${turnId}`, clientId },
    });
  const completed = (turnId: string, status: string, error?: unknown) =>
    e.notification("turn/completed", { threadId: THREAD, turn: { id: turnId, status, error } });
  return { e, user, completed };
}

Deno.test("TurnEvents tells a message queued ahead, then its own turn by its clientMessageId, and ignores other threads", () => {
  const { e, user } = events();
  assert.deepEqual(e.notification("turn/started", { threadId: THREAD, turn: { id: "t0" } }), [
    { kind: "note", text: "A turn started" },
  ]);
  assert.deepEqual(user("t0", "theirs"), [
    { kind: "note", text: "A message queued ahead of yours runs first (clientMessageId theirs)" },
  ]);
  assert.deepEqual(user("t0", "theirs"), [], "the same message ahead is told once");
  assert.deepEqual(e.notification("turn/started", { threadId: "other", turn: { id: "x" } }), []);
  assert.deepEqual(user("t1", "mine"), [{ kind: "ownTurnStarted" }]);
  assert.equal(e.turnId, "t1");
  assert.deepEqual(e.story.queuedAhead, [{ clientMessageId: "theirs", turnId: "t0" }]);
});

Deno.test("TurnEvents reports an MCP tool call's start and end, and counts the own turn's completed items", () => {
  const { e, user } = events();
  user("t1", "mine");
  const call = (method: string, status: string) =>
    e.notification(method, {
      threadId: THREAD,
      turnId: "t1",
      item: { type: "mcpToolCall", id: "mcp_1", status, server: "docs", tool: "search" },
    });
  assert.deepEqual(call("item/started", "inProgress"), [
    { kind: "toolCall", id: "mcp_1", completed: false },
    { kind: "note", text: "Codex is calling tool search of server docs" },
  ]);
  assert.deepEqual(call("item/completed", "completed"), [
    { kind: "toolCall", id: "mcp_1", completed: true },
  ]);
  assert.equal(e.itemsCompleted, 1);
});

Deno.test("TurnEvents: an earlier turn interrupted pauses the queue; the own turn's end says how it ended", () => {
  const { e, user, completed } = events();
  assert.deepEqual(completed("t0", "interrupted"), [{ kind: "queuePaused" }]);
  user("t1", "mine");
  assert.deepEqual(completed("t1", "failed", { message: "boom", codexErrorInfo: "badRequest" }), [
    {
      kind: "ended",
      end: "failed",
      error: "boom",
      failure: { failureClass: "bad_request", retryable: false },
    },
  ]);
  assert.deepEqual(completed("t1", "cancelled"), [{ kind: "ended", end: "interrupted" }]);
  assert.deepEqual(e.ended("inProgress", null), [], "a turn still running did not end");
});

Deno.test("TurnEvents: a review's turn is claimed, never told by a user message; claimed after its end, it ends at once", () => {
  const { e, user, completed } = events(REVIEW);
  assert.deepEqual(user("r", "mine"), [], "the reviewer's prompt tells nothing");
  assert.deepEqual(completed("r", "completed"), []);
  assert.deepEqual(e.claim("r"), [{ kind: "ownTurnStarted" }, { kind: "ended", end: "completed" }]);
  assert.deepEqual(e.claim("r2"), [], "claimed once");
});

Deno.test("TurnEvents: the turn running now and a review's inner turn; a started own turn adds no note", () => {
  const { e, completed } = events(REVIEW);
  const started = (id: string | undefined, rootTurnId?: string) =>
    e.notification("turn/started", { threadId: THREAD, turn: { id, rootTurnId } });
  assert.deepEqual(started("x", "elsewhere"), [{ kind: "note", text: "A turn started" }]);
  assert.equal(e.currentTurnId, "x");
  assert.equal(e.innerTurnId, null, "no own turn yet: no turn is inside it");
  completed("x", "completed");
  assert.equal(e.currentTurnId, null);
  started("y");
  assert.equal(e.innerTurnId, null, "a turn inside no other");
  assert.deepEqual(e.claim("R"), [{ kind: "ownTurnStarted" }], "claimed while it runs");
  assert.deepEqual(started("R", "R"), [], "the own turn: no note");
  assert.equal(e.innerTurnId, null, "a turn is not inside itself");
  started("other", "someone-else");
  started(undefined, "R");
  assert.equal(e.innerTurnId, null);
  started("R2", "R");
  assert.equal(e.innerTurnId, "R2");
  assert.equal(e.currentTurnId, "R2");
});

Deno.test("TurnEvents: a resolved request (thread-scoped or not), thread status changes nothing, a failure without an error", () => {
  const { e } = events();
  assert.deepEqual(e.notification("serverRequest/resolved", { requestId: 7 }), [
    { kind: "resolved", requestId: 7 },
  ]);
  assert.deepEqual(
    e.notification("serverRequest/resolved", { threadId: THREAD, requestId: "a" }),
    [{ kind: "resolved", requestId: "a" }],
  );
  assert.deepEqual(
    e.notification("serverRequest/resolved", { threadId: "other", requestId: "a" }),
    [],
  );
  assert.deepEqual(
    e.notification("thread/status/changed", { threadId: THREAD, status: { type: "idle" } }),
    [],
  );
  const [ended] = e.ended("failed", null);
  assert.equal(ended.kind === "ended" && ended.end, "failed");
  assert.equal(ended.kind === "ended" && ended.error, undefined);
  assert.deepEqual(e.ended("failed", undefined), [ended]);
});

Deno.test("TurnEvents counts the own turn's completed items only; a steer's user message is no message ahead", () => {
  const { e, user } = events();
  const item = (method: string, turnId: string | undefined, it: Record<string, unknown>) =>
    e.notification(method, { threadId: THREAD, turnId, item: it });
  const answer = { type: "agentMessage", id: "a1", text: "" };
  assert.deepEqual(item("item/completed", undefined, answer), [], "no turn known: not counted");
  item("item/completed", "t0", answer);
  user("t1", "mine");
  item("item/started", "t1", answer);
  item("item/completed", "t1", answer);
  item("item/completed", "t1", { type: "userMessage", id: "u2", clientId: "steer-1" });
  item("item/completed", "t2", answer);
  assert.equal(e.itemsCompleted, 1);
  assert.deepEqual(user("t1", "steer-1"), [], "a steer's message in the own turn");
  assert.deepEqual(e.story.queuedAhead, []);
});

Deno.test("TurnEvents: who runs ahead without a clientId; tool calls are MCP calls with ids; activity says whose", () => {
  const { e, user } = events();
  const item = (method: string, turnId: string, it: Record<string, unknown>) =>
    e.notification(method, { threadId: THREAD, turnId, item: it });
  assert.deepEqual(
    e.notification("item/started", {
      threadId: THREAD,
      turnId: "t0",
      item: { type: "userMessage", id: "u0" },
    }),
    [{ kind: "note", text: "A message queued ahead of yours runs first" }],
  );
  assert.deepEqual(e.story.queuedAhead, [{ clientMessageId: null, turnId: "t0" }]);
  const reasoning = { type: "reasoning", id: "r0" };
  assert.deepEqual(item("item/started", "t0", reasoning), [
    { kind: "note", text: "Codex is thinking (for a message queued ahead of yours)" },
  ]);
  assert.deepEqual(
    item("item/completed", "t0", { type: "mcpToolCall", id: "c0", status: "completed" }),
    [
      { kind: "toolCall", id: "c0", completed: true },
    ],
    "an earlier turn's tool call too (the watchdog times every call)",
  );
  e.notification("turn/completed", { threadId: THREAD, turn: { id: "t0", status: "completed" } });
  assert.deepEqual(
    e.notification("item/started", { threadId: THREAD, item: reasoning }),
    [{ kind: "note", text: "Codex is thinking (for a message queued ahead of yours)" }],
    "no turn named or running, own turn unknown: not ours",
  );
  user("t1", "mine");
  assert.deepEqual(item("item/started", "t1", reasoning), [{
    kind: "note",
    text: "Codex is thinking",
  }]);
  assert.deepEqual(item("item/started", "t9", reasoning), [
    { kind: "note", text: "Codex is thinking (for a message queued ahead of yours)" },
  ], "another turn's, once the own turn is known");
  assert.deepEqual(item("item/completed", "t1", { type: "mcpToolCall", status: "completed" }), []);
  assert.deepEqual(item("item/completed", "t1", { type: "commandExecution", id: "x1" }), []);
});

Deno.test("TurnEvents: an end without a turn id or of another turn is not the own turn's; it completes by its status", () => {
  const { e, user, completed } = events();
  const noId = () =>
    e.notification("turn/completed", { threadId: THREAD, turn: { status: "completed" } });
  assert.deepEqual(noId(), [], "before the own turn is known");
  user("t1", "mine");
  assert.deepEqual(noId(), []);
  assert.deepEqual(completed("t9", "interrupted"), [], "no queue pause once the own turn runs");
  assert.deepEqual(completed("t1", "completed"), [{ kind: "ended", end: "completed" }]);
});

Deno.test("TurnEvents remembers the last 8 turns that ended before a claim", () => {
  const claimAfter = (n: number, id: string) => {
    const { e, completed } = events(REVIEW);
    for (let i = 1; i <= n; i++) completed(`t${i}`, "completed");
    return e.claim(id);
  };
  assert.equal(claimAfter(9, "t2").length, 2, "the 8 newest are remembered");
  assert.deepEqual(claimAfter(9, "t1"), [{ kind: "ownTurnStarted" }], "the 9th newest is not");
});

Deno.test("TurnEvents: a failed model request is told in one line, ours or a message's ahead, and is the latest activity (issue 38)", () => {
  const { e, user } = events();
  const error = (turnId: string, willRetry: boolean, message: string, details: string | null) =>
    e.notification("error", {
      error: { message, codexErrorInfo: "other", additionalDetails: details, misalignment: null },
      willRetry,
      threadId: THREAD,
      turnId,
    });
  user("t0", "theirs");
  assert.deepEqual(error("t0", true, "Reconnecting... 1/5", "boom"), [
    {
      kind: "note",
      text:
        "Codex's model request failed and is retried: Reconnecting... 1/5 (boom) (for a message queued ahead of yours)",
    },
  ]);
  user("t1", "mine");
  assert.deepEqual(error("t1", false, "stream\ndisconnected", null), [
    { kind: "note", text: "Codex's model request failed: stream disconnected" },
  ]);
  assert.equal(e.story.latest, "Codex's model request failed: stream disconnected");
  assert.deepEqual(
    e.notification("error", { threadId: "other", turnId: "x", willRetry: true, error: {} }),
    [],
    "another thread's error is not ours",
  );
  e.notification("item/started", {
    threadId: THREAD,
    turnId: "t1",
    item: { type: "commandExecution", id: "c1", command: "rm -rf SECRET" },
  });
  assert.equal(e.story.latest, "Codex is running a command", "the latest wins, never the command");
});

Deno.test("streamErrorText: one line of at most 240 characters, cut on a character boundary (issue 38)", () => {
  assert.equal(
    streamErrorText(true, undefined, undefined),
    "Codex's model request failed and is retried: no reason given",
  );
  const long = streamErrorText(false, "😀".repeat(400), "x\n\ny");
  assert.equal([...long].length, STREAM_ERROR_MAX_CHARS);
  assert.ok(long.endsWith("😀…"), "no half surrogate pair");
  assert.doesNotMatch(long, /\n/);
});

Deno.test("TurnEvents: a turn failed for a spent limit retries after the reset Codex last told (issue 42)", () => {
  const e = new TurnEvents(
    { threadId: THREAD, clientMessageId: "mine", job: MESSAGE },
    null,
    () => 1_000_000,
  );
  const spent = { usedPercent: 100, windowDurationMins: 300, resetsAt: 2_000 };
  assert.deepEqual(
    e.notification("account/rateLimits/updated", { rateLimits: { primary: spent } }),
    [],
  );
  e.notification("item/started", {
    threadId: THREAD,
    turnId: "t1",
    item: { type: "userMessage", id: "u1", clientId: "mine" },
  });
  const [ended] = e.notification("turn/completed", {
    threadId: THREAD,
    turn: {
      id: "t1",
      status: "failed",
      error: { message: "limit", codexErrorInfo: "usageLimitExceeded" },
    },
  });
  assert.deepEqual(ended.kind === "ended" && ended.failure, {
    failureClass: "capacity",
    retryable: true,
    retryAfterMs: 1_000_000,
  });
});

Deno.test("TurnEvents: one view of a run's events; files and usage count the same turns (the own one and one inside it), never another's", () => {
  const { e, user } = events(REVIEW);
  const zero = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0 };
  // Codex's total runs on over the thread; each request's `last` is 5.
  let total = 0;
  const usage = (turnId: string) =>
    e.notification("thread/tokenUsage/updated", {
      threadId: THREAD,
      turnId,
      tokenUsage: {
        total: { ...zero, totalTokens: total += 5 },
        last: { ...zero, totalTokens: 5 },
        modelContextWindow: null,
      },
    });
  const patch = (turnId: string, path: string) =>
    e.notification("item/completed", {
      threadId: THREAD,
      turnId,
      item: { type: "fileChange", status: "completed", changes: [{ path, kind: { type: "add" } }] },
    });
  const diff = (turnId: string, text: string) =>
    e.notification("turn/diff/updated", { threadId: THREAD, turnId, diff: text });
  user("t0", "theirs");
  patch("t0", "/r/theirs.txt");
  usage("t0");
  e.claim("R");
  e.notification("turn/started", { threadId: THREAD, turn: { id: "R2", rootTurnId: "R" } });
  for (const turnId of ["R", "R2", "other"]) {
    patch(turnId, `/r/${turnId}.txt`);
    usage(turnId);
  }
  diff("other", "diff --git a/x b/x\nnew file mode 100644\n");
  e.declined({ method: "item/tool/call", summary: "a dynamic tool" });
  const view = e.view({ cwd: "/r" });
  assert.deepEqual(view.changedFiles, [
    { path: "R.txt", kind: "add" },
    { path: "R2.txt", kind: "add" },
  ]);
  assert.equal(view.usage?.totalTokens, 10, "R and R2, as the files");
  assert.deepEqual(view.declinedRequests, [{
    method: "item/tool/call",
    summary: "a dynamic tool",
  }]);
  assert.equal(view.turnId, "R");
  assert.equal(e.view(undefined).changedFiles, undefined, "no cwd known: no files");
  diff("R2", "diff --git a/y b/y\nnew file mode 100644\n");
  assert.deepEqual(e.view({ cwd: "/r" }).changedFiles?.map((f) => f.path), [
    "R.txt",
    "R2.txt",
    "y",
  ]);
});

Deno.test("TurnEvents' view: the newest 20 declined requests, copies; what Codex does now; no files, usage or activity before any", () => {
  const { e, user } = events();
  const empty = e.view({ cwd: "/r" });
  assert.deepEqual(empty, {
    turnId: null,
    itemsCompleted: 0,
    declinedRequests: [],
    queuedAhead: [],
    notes: [],
    changedFiles: [],
    changedFilesCount: 0,
  });
  for (let i = 0; i < 22; i++) e.declined({ method: "m", summary: `s${i}`, extra: i } as never);
  const declined = e.view(undefined).declinedRequests;
  assert.equal(declined.length, 20);
  assert.deepEqual(declined[0], { method: "m", summary: "s2" });
  assert.deepEqual(declined.at(-1), { method: "m", summary: "s21" });
  declined[0].summary = "changed";
  assert.equal(e.view(undefined).declinedRequests[0].summary, "s2", "the view is a copy");
  user("t1", "mine");
  e.notification("item/started", {
    threadId: THREAD,
    turnId: "t1",
    item: { type: "commandExecution", id: "c1", status: "inProgress" },
  });
  assert.equal(e.view(undefined).activity, "Codex is running a command");
});

Deno.test("TurnEvents: before its own turn is known, a file of no turn is not the run's; git's view at the end replaces Codex's", () => {
  const { e, user } = events();
  e.notification("item/completed", {
    threadId: THREAD,
    item: {
      type: "fileChange",
      status: "completed",
      changes: [{ path: "/r/a", kind: { type: "add" } }],
    },
  });
  const diff = { threadId: THREAD, diff: "diff --git a/b b/b\nindex 1..2\n" };
  assert.deepEqual(e.notification("turn/diff/updated", diff), [], "nothing for the runtime to do");
  user("t1", "mine");
  assert.deepEqual(e.view({ cwd: "/r" }).changedFiles, []);
  e.changedInGit("/r", [{ path: "shell.txt", kind: "add" }]);
  assert.deepEqual(e.view({ cwd: "/r" }).changedFiles, [{ path: "shell.txt", kind: "add" }]);
});

Deno.test("TurnEvents: a notification of the own turn over the frame bound is listed and said; others' are not", () => {
  const { e } = events(REVIEW);
  const cut = (params: Record<string, unknown>) =>
    e.notification("codex-relay/notificationCut", {
      method: "item/completed",
      bytes: 2_000_000,
      ...params,
    });
  const said = (what: string) => [{
    kind: "note",
    text:
      `Codex sent a ${what} of 2000000 bytes, over the relay's frame bound: the relay skipped it (see cutNotifications)`,
  }];
  e.notification("turn/started", { threadId: THREAD, turn: { id: "R" } });
  assert.deepEqual(cut({ threadId: THREAD }), [], "no own turn yet: the turn running is not it");
  assert.deepEqual(cut({ threadId: THREAD, turnId: "R" }), [], "nor is a turn of its id");
  assert.deepEqual(e.cutNotifications, {}, "none: absent from results");
  assert.equal(e.view(undefined).cutNotifications, undefined);
  e.claim("R");
  assert.deepEqual(
    cut({ threadId: THREAD }),
    said("item/completed"),
    "no turn id: the one running",
  );
  assert.equal(e.itemsCompleted, 0, "an item of no named turn is not counted");
  e.notification("turn/started", { threadId: THREAD, turn: { id: "R2", rootTurnId: "R" } });
  assert.deepEqual(cut({ threadId: "other", turnId: "R" }), [], "another thread's");
  assert.deepEqual(cut({ threadId: THREAD, turnId: "elsewhere" }), [], "another turn's");
  assert.deepEqual(
    cut({ threadId: THREAD, turnId: "R", itemType: "commandExecution", itemId: "c1" }),
    said("item/completed (commandExecution c1)"),
  );
  assert.equal(e.itemsCompleted, 1, "a completed item of the own turn, though cut");
  assert.deepEqual(
    cut({ threadId: THREAD, turnId: "R2", itemId: "c2" }),
    said("item/completed (c2)"),
  );
  assert.equal(e.itemsCompleted, 1, "the inner turn's items are not the own turn's");
  assert.deepEqual(
    cut({ threadId: THREAD, method: "item/started", turnId: "R", itemType: "agentMessage" }),
    said("item/started (agentMessage)"),
  );
  assert.equal(e.itemsCompleted, 1, "a started item is not a completed one");
  const listed = [
    { method: "item/completed", bytes: 2_000_000 },
    { method: "item/completed", bytes: 2_000_000, itemType: "commandExecution", itemId: "c1" },
    { method: "item/completed", bytes: 2_000_000, itemId: "c2" },
    { method: "item/started", bytes: 2_000_000, itemType: "agentMessage" },
  ];
  assert.deepEqual(e.cutNotifications, { cutNotifications: listed });
  const view = e.view(undefined);
  assert.deepEqual(view.cutNotifications, listed);
  assert.deepEqual(view.notes, [
    said("item/completed")[0].text,
    said("item/completed (commandExecution c1)")[0].text,
    said("item/completed (c2)")[0].text,
    said("item/started (agentMessage)")[0].text,
  ]);
});

Deno.test("TurnEvents: only the first 20 cut notifications are kept and said", () => {
  const { e, user } = events();
  user("t1", "mine");
  const cut = (i: number) =>
    e.notification("codex-relay/notificationCut", {
      method: "item/completed",
      bytes: 1_100_000 + i,
      threadId: THREAD,
      turnId: "t1",
    });
  for (let i = 0; i < 20; i++) assert.equal(cut(i).length, 1);
  assert.deepEqual(cut(20), [], "the 21st is neither kept nor said");
  const kept = e.cutNotifications.cutNotifications!;
  assert.equal(kept.length, 20);
  assert.deepEqual(kept.at(-1), { method: "item/completed", bytes: 1_100_019 });
  assert.equal(e.itemsCompleted, 20);
});
