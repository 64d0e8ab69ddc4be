import assert from "assert";
import { scriptedSession } from "../../testing/scripted_session.ts";
import { type ReasonCode, RelayError } from "../../src/core/errors.ts";
import { decodeCursor, encodeCursor } from "../../src/reply/mod.ts";
import { readReply } from "../../src/ops/read_reply.ts";

const THREAD = "01a22a5c-6698-7df3-813e-7166a248c477";
const TURN = "01a22a5c-66dd-7f43-a294-c1ac8dd820ae";
const SCOPE = { threadId: THREAD, clientMessageId: "c1" };

const user = (clientId: string | null = "c1", id = "u1") => ({
  type: "userMessage",
  id,
  clientId,
  content: [],
});
const entry = (item: Record<string, unknown>, turnId = TURN) => ({ turnId, item });
const final = (id: string, text: string) => ({
  type: "agentMessage",
  id,
  text,
  phase: "final_answer",
});
const turns = (status: string) => ({
  data: [{ id: TURN, status, completedAt: status === "inProgress" ? null : 1 }],
  nextCursor: null,
});
const answered = (reason: ReasonCode, code = -32600) =>
  new RelayError(reason, `answered ${reason}`, { written: true, rpcCode: code });

/** A thread whose search page holds the user item and whose turn holds `items`. */
function matchedThread(items: Record<string, unknown>[], status = "completed") {
  return scriptedSession({
    "thread/items/list": (p) =>
      p.turnId
        ? { data: [entry(user()), ...items.map((i) => entry(i))], nextCursor: null }
        : { data: [entry(final("newer", "x")), entry(user())], nextCursor: null },
    "thread/turns/list": () => turns(status),
    "thread/items/read": () => ({ data: [entry(user())] }),
  });
}

Deno.test("readReply: a fresh read sends exactly the search page, the turn statuses, the turn page", async () => {
  const { session, calls } = matchedThread([final("m1", "Hi.")]);
  const out = await readReply(session, SCOPE);
  assert.deepEqual(out, {
    status: "observed",
    ...SCOPE,
    association: "same_turn_not_exclusive",
    turn: { id: TURN, status: "completed" },
    replies: [{ itemId: "m1", text: "Hi.", truncated: false }],
    nextCursor: null,
    searchCursor: null,
  });
  assert.deepEqual(calls, [
    ["thread/items/list", { threadId: THREAD, sortDirection: "desc", limit: 100 }],
    ["thread/turns/list", {
      threadId: THREAD,
      limit: 50,
      sortDirection: "desc",
      itemsView: "notLoaded",
    }],
    ["thread/items/list", { threadId: THREAD, turnId: TURN, sortDirection: "asc", limit: 100 }],
  ]);
});

Deno.test("readReply: a running turn hands a reply cursor that continues after the last item", async () => {
  const { session } = matchedThread([final("m1", "Hi.")], "inProgress");
  const out = await readReply(session, SCOPE);
  assert.deepEqual(
    out.turn,
    { id: TURN, status: "running" },
    "Codex's inProgress reads as running",
  );
  assert.deepEqual(decodeCursor(out.nextCursor!, { ...SCOPE, kind: "reply" }), {
    v: 1,
    kind: "reply",
    ...SCOPE,
    userItemId: "u1",
    turnId: TURN,
    lastItemId: "m1",
  });
});

Deno.test("readReply: no match and not in the queue: not_found on the last page, no_match with a searchCursor before it", async () => {
  const last = scriptedSession({
    "thread/items/list": () => ({ data: [entry(user("other"))], nextCursor: null }),
    "thread/queue/list": () => ({ data: [], nextCursor: null }),
  });
  const a = await readReply(last.session, SCOPE);
  assert.deepEqual([a.status, a.searchCursor, a.turn, a.replies], ["not_found", null, null, []]);
  // The items are searched again after the queue: Codex may have taken the message meanwhile.
  assert.deepEqual(last.calls.map(([m]) => m), [
    "thread/items/list",
    "thread/queue/list",
    "thread/items/list",
  ]);
  const more = scriptedSession({
    "thread/items/list": () => ({ data: [], nextCursor: "app-cursor-2" }),
    "thread/queue/list": () => ({ data: [], nextCursor: null }),
  });
  const b = await readReply(more.session, SCOPE);
  assert.equal(b.status, "no_match");
  assert.deepEqual(decodeCursor(b.searchCursor!, { ...SCOPE, kind: "search" }), {
    v: 1,
    kind: "search",
    ...SCOPE,
    appCursor: "app-cursor-2",
  });
});

Deno.test("readReply: a message still in the queue is queued, with whether a turn runs on the thread", async () => {
  const queue = { data: [{ id: "q1", clientUserMessageId: "c1" }], nextCursor: null };
  for (
    const [newest, running] of [
      [{ id: TURN, status: "completed", completedAt: 1 }, false],
      [{ id: TURN, status: "inProgress", completedAt: null }, true],
      // How a turn running in another process reads to a fresh helper.
      [{ id: TURN, status: "interrupted", completedAt: null }, true],
      [undefined, false],
    ] as const
  ) {
    const { session, calls } = scriptedSession({
      "thread/items/list": () => ({ data: [entry(user("other"))], nextCursor: null }),
      "thread/queue/list": () => queue,
      "thread/turns/list": () => ({ data: newest ? [newest] : [], nextCursor: null }),
    });
    const out = await readReply(session, SCOPE);
    assert.equal(out.status, "queued");
    assert.equal(out.turnRunning, running, JSON.stringify(newest));
    assert.deepEqual(out.replies, []);
    assert.deepEqual(calls.at(-1), ["thread/turns/list", {
      threadId: THREAD,
      limit: 1,
      sortDirection: "desc",
      itemsView: "notLoaded",
    }]);
  }
});

Deno.test("readReply: a message taken from the queue between the reads is found on the second search", async () => {
  const { session } = scriptedSession({
    "thread/items/list": (p, n) =>
      p.turnId
        ? { data: [entry(user()), entry(final("m1", "Hi."))], nextCursor: null }
        : n === 1
        ? { data: [], nextCursor: null }
        : { data: [entry(user())], nextCursor: null },
    "thread/queue/list": () => ({ data: [], nextCursor: null }),
    "thread/turns/list": () => turns("completed"),
  });
  const out = await readReply(session, SCOPE);
  assert.equal(out.status, "observed");
  assert.deepEqual(out.replies, [{ itemId: "m1", text: "Hi.", truncated: false }]);
});

Deno.test("readReply: a search cursor continues the search at its app-server cursor", async () => {
  const cursor = encodeCursor({ v: 1, kind: "search", ...SCOPE, appCursor: "app-7" });
  const { session, calls } = matchedThread([final("m1", "Hi.")]);
  const out = await readReply(session, { ...SCOPE, cursor });
  assert.equal(out.status, "observed");
  assert.deepEqual(calls[0], ["thread/items/list", {
    threadId: THREAD,
    sortDirection: "desc",
    limit: 100,
    cursor: "app-7",
  }]);
});

Deno.test("readReply: a search cursor's page without a match is no_match and never looks in the queue (only a fresh read does)", async () => {
  const cursor = encodeCursor({ v: 1, kind: "search", ...SCOPE, appCursor: "app-7" });
  const { session, calls } = scriptedSession({
    "thread/items/list": () => ({ data: [entry(user("other"))], nextCursor: null }),
    "thread/queue/list": () => ({
      data: [{ id: "q1", clientUserMessageId: "c1" }],
      nextCursor: null,
    }),
  });
  const out = await readReply(session, { ...SCOPE, cursor });
  assert.deepEqual([out.status, out.searchCursor, out.replies], ["no_match", null, []]);
  assert.deepEqual(calls.map(([m]) => m), ["thread/items/list"]);
});

Deno.test("readReply: two matching user items are ambiguous, nothing more is read", async () => {
  const { session, calls } = scriptedSession({
    "thread/items/list": () => ({
      data: [entry(user("c1", "u1")), entry(user("c1", "u2"))],
      nextCursor: null,
    }),
  });
  const out = await readReply(session, SCOPE);
  assert.equal(out.status, "ambiguous");
  assert.deepEqual(out.replies, []);
  assert.equal(calls.length, 1);
});

const replyCursor = (over: Record<string, unknown> = {}) =>
  encodeCursor({
    v: 1,
    kind: "reply",
    ...SCOPE,
    userItemId: "u1",
    turnId: TURN,
    lastItemId: "m1",
    ...over,
  } as never);

Deno.test("readReply: a reply cursor re-reads and verifies its user item, checks the search page for a second match, then continues after lastItemId", async () => {
  const { session, calls } = matchedThread([final("m1", "Hi."), final("m2", "More.")]);
  // The fixture-like handler ignores the anchor; the projector skips up to it.
  const out = await readReply(session, { ...SCOPE, cursor: replyCursor() });
  assert.equal(out.status, "observed");
  assert.deepEqual(calls[0], ["thread/items/read", {
    threadId: THREAD,
    turnId: TURN,
    itemIds: ["u1"],
  }]);
  assert.deepEqual(calls.at(-1), ["thread/items/list", {
    threadId: THREAD,
    turnId: TURN,
    sortDirection: "asc",
    limit: 100,
    cursor: { type: "item", itemId: "m1" },
  }]);
  const searches = calls.filter(([m, p]) => m === "thread/items/list" && !p.turnId);
  assert.deepEqual(
    searches,
    [["thread/items/list", { threadId: THREAD, sortDirection: "desc", limit: 100 }]],
    "one search page, the newest one a fresh read looks at, for the ambiguity rule",
  );
});

Deno.test("readReply: a reply cursor continues when its message has left the newest search page and no other took its id", async () => {
  const { session } = scriptedSession({
    "thread/items/read": () => ({ data: [entry(user())] }),
    "thread/items/list": (p) =>
      p.turnId
        ? { data: [entry(final("m2", "More."))], nextCursor: null } // After the anchor, m1.
        : { data: [entry(final("newer", "x"))], nextCursor: "older" },
    "thread/turns/list": () => turns("completed"),
  });
  const out = await readReply(session, { ...SCOPE, cursor: replyCursor() });
  assert.equal(out.status, "observed");
  assert.deepEqual(out.replies, [{ itemId: "m2", text: "More.", truncated: false }]);
});

Deno.test("readReply: refresh rescans the matched turn from its start", async () => {
  const { session, calls } = matchedThread([final("m1", "Hi.")]);
  const out = await readReply(session, { ...SCOPE, cursor: replyCursor(), refresh: true });
  assert.deepEqual(out.replies, [{ itemId: "m1", text: "Hi.", truncated: false }]);
  assert.equal(calls.at(-1)![1].cursor, undefined);
});

Deno.test("readReply: a reply cursor whose user item changed is invalid_cursor with no text", async () => {
  const cases: [string, unknown][] = [
    ["gone", { data: [] }],
    ["two", { data: [entry(user()), entry(user())] }],
    ["other turn", { data: [entry(user(), "01a22a5c-0000-7000-8000-00000000000f")] }],
    ["other id", { data: [entry(user("c1", "u9"))] }],
    ["not a user item", { data: [entry(final("u1", "x"))] }],
    ["not a user item, of a phase the relay does not know", {
      data: [entry({ ...final("u1", "x"), phase: "later_phase", clientId: "c1" })],
    }],
    ["other clientId", { data: [entry(user("c2"))] }],
    ["no clientId", { data: [entry(user(null))] }],
  ];
  for (const [why, page] of cases) {
    const { session, calls } = scriptedSession({
      "thread/items/read": () => page,
      "thread/items/list": () => ({ data: [entry(final("m2", "SECRET"))], nextCursor: null }),
      "thread/turns/list": () => turns("completed"),
    });
    const out = await readReply(session, { ...SCOPE, cursor: replyCursor() });
    assert.deepEqual(
      [out.status, out.reason, out.replies],
      ["unavailable", "invalid_cursor", []],
      why,
    );
    assert.deepEqual(calls.map(([m]) => m), ["thread/items/read"], `${why}: nothing else is read`);
  }
});

Deno.test("readReply: a reply cursor of another message is invalid_cursor before any RPC", async () => {
  const { session, calls } = scriptedSession({});
  const cursor = encodeCursor({
    v: 1,
    kind: "reply",
    threadId: THREAD,
    clientMessageId: "c2",
    userItemId: "u1",
    turnId: TURN,
    lastItemId: null,
  });
  const out = await readReply(session, { ...SCOPE, cursor });
  assert.deepEqual(out, {
    status: "unavailable",
    reason: "invalid_cursor",
    ...SCOPE,
    turn: null,
    replies: [],
    nextCursor: null,
    searchCursor: null,
  });
  assert.deepEqual(calls, []);
});

Deno.test("readReply: a turn page cut by the reply budget hands a cursor, even for a completed turn", async () => {
  const big = "a".repeat(10 * 1024);
  const { session } = matchedThread([final("m1", big), final("m2", big), final("m3", "tail")]);
  const out = await readReply(session, SCOPE);
  assert.equal(out.turn?.status, "completed");
  assert.ok(out.replies.length >= 1);
  assert.equal(typeof out.nextCursor, "string", "more items follow");
});

Deno.test("readReply: the turn status falls back to the summary view only for an answered refusal", async () => {
  for (
    const [error, expected] of [
      [answered("rpc_error"), ["observed", ["notLoaded", "summary"]]],
      [answered("thread_not_found"), ["unavailable", ["notLoaded"]]],
      [answered("busy"), ["unavailable", ["notLoaded"]]],
      [answered("legacy_history", -32601), ["unavailable", ["notLoaded", "notLoaded"]]],
      [new RelayError("timeout", "t", { written: true }), ["unavailable", ["notLoaded"]]],
    ] as const
  ) {
    const { session, calls } = scriptedSession({
      "thread/items/list": (p) => ({
        data: p.turnId ? [entry(user())] : [entry(user())],
        nextCursor: null,
      }),
      "thread/turns/list": (p) => {
        if (p.itemsView === "summary") return turns("completed");
        throw error;
      },
    });
    const out = await readReply(session, SCOPE);
    assert.equal(out.status, expected[0], error.reason);
    assert.deepEqual(
      calls.filter(([m]) => m === "thread/turns/list").map(([, p]) => p.itemsView),
      expected[1],
      error.reason,
    );
    if (out.status === "unavailable") assert.equal(out.reason, error.reason);
  }
});

Deno.test("readReply: legacy history is told apart from a missing thread by thread/turns/list", async () => {
  const legacy = () => {
    throw answered("legacy_history", -32601);
  };
  for (
    const [turnsList, reason] of [
      [() => turns("completed"), "legacy_history"],
      [() => {
        throw answered("thread_not_found");
      }, "thread_not_found"],
      [() => {
        throw answered("rpc_error");
      }, "legacy_history"],
      [() => {
        throw new RelayError("timeout", "t", { written: true });
      }, "timeout"],
    ] as const
  ) {
    const { session, calls } = scriptedSession({
      "thread/items/list": legacy,
      "thread/turns/list": turnsList,
    });
    const out = await readReply(session, SCOPE);
    assert.deepEqual([out.status, out.reason], ["unavailable", reason]);
    assert.deepEqual(calls[1], ["thread/turns/list", {
      threadId: THREAD,
      limit: 1,
      sortDirection: "desc",
      itemsView: "notLoaded",
    }]);
  }
  const other = scriptedSession({
    "thread/items/list": () => {
      throw answered("rpc_error");
    },
  });
  const out = await readReply(other.session, SCOPE);
  assert.equal(out.reason, "rpc_error");
  assert.equal(other.calls.length, 1, "only legacy_history is checked");
});

Deno.test("readReply: a page that is not the turn's last but consumed nothing fails closed", async () => {
  const { session } = scriptedSession({
    "thread/items/list": (p) =>
      p.turnId
        ? { data: [entry(user()), entry(final("m1", "x"))], nextCursor: "more" }
        : { data: [entry(user())], nextCursor: null },
    "thread/turns/list": () => turns("completed"),
  });
  // Page 1 consumes up to m1; page 2 (the same items again, anchored at m1) advances nothing.
  const out = await readReply(session, SCOPE);
  assert.deepEqual([out.status, out.reason], ["unavailable", "protocol_error"]);
});
