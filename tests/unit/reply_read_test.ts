import assert from "assert";
import { scriptedSession } from "../../testing/scripted_session.ts";
import { RelayError } from "../../src/core/errors.ts";
import { decodeCursor, encodeCursor } from "../../src/reply/mod.ts";
import { MAX_TURN_PAGES, readReply, readTurn } from "../../src/ops/read_reply.ts";

const THREAD = "01a22a5c-6698-7df3-813e-7166a248c477";
const TURN = "01a22a5c-66dd-7f43-a294-c1ac8dd820ae";
const SCOPE = { threadId: THREAD, clientMessageId: "c1" };

const user = { type: "userMessage", id: "u1", clientId: "c1", content: [] };
const entry = (item: Record<string, unknown>) => ({ turnId: TURN, item });
const final = (id: string, text: string) => ({
  type: "agentMessage",
  id,
  text,
  phase: "final_answer",
});
const completed = { data: [{ id: TURN, status: "completed", completedAt: 1 }], nextCursor: null };

const refused = (message: string) =>
  new RelayError("rpc_error", message, { written: true, rpcCode: -32600 });

Deno.test("readReply() falls back to the summary items view when notLoaded is refused", async () => {
  const { session, calls } = scriptedSession({
    "thread/items/list": (p) =>
      p.turnId
        ? { data: [entry(user), entry(final("m1", "hi"))], nextCursor: null }
        : { data: [entry(user)], nextCursor: null },
    "thread/turns/list": (p) => {
      if (p.itemsView === "notLoaded") throw refused("Invalid request: unknown variant");
      return completed;
    },
  });
  const out = await readReply(session, SCOPE);
  assert.deepEqual(out.turn, { id: TURN, status: "completed" });
  assert.deepEqual(out.replies, [{ itemId: "m1", text: "hi", truncated: false }]);
  assert.deepEqual(
    calls.filter(([m]) => m === "thread/turns/list").map(([, p]) => p.itemsView),
    ["notLoaded", "summary"],
  );
});

Deno.test("readReply() reports unverified when both item views are refused", async () => {
  const { session } = scriptedSession({
    "thread/items/list": () => ({ data: [entry(user)], nextCursor: null }),
    "thread/turns/list": () => {
      throw refused("Invalid request: nope");
    },
  });
  const out = await readReply(session, SCOPE);
  assert.equal(out.status, "observed");
  assert.deepEqual(out.turn, { id: TURN, status: "unverified" });
  assert.equal(typeof out.nextCursor, "string", "an unverified turn may still get replies");
});

Deno.test("readReply() fails the read when the summary items view is not answered", async () => {
  const { session, calls } = scriptedSession({
    "thread/items/list": () => ({ data: [entry(user)], nextCursor: null }),
    "thread/turns/list": (p) => {
      if (p.itemsView === "notLoaded") throw refused("Invalid request: unknown variant");
      throw new RelayError("timeout", "no answer", { written: true });
    },
  });
  const out = await readReply(session, SCOPE);
  assert.deepEqual([out.status, out.reason, out.turn], ["unavailable", "timeout", null]);
  assert.deepEqual(
    calls.filter(([m]) => m === "thread/turns/list").map(([, p]) => p.itemsView),
    ["notLoaded", "summary"],
  );
});

Deno.test("readReply() fails the read with the turn page's own reason when that page is not answered", async () => {
  const { session } = scriptedSession({
    "thread/items/list": (p) => {
      if (!p.turnId) return { data: [entry(user)], nextCursor: null };
      throw new RelayError("timeout", "no answer", { written: true });
    },
    "thread/turns/list": () => completed,
  });
  const out = await readReply(session, SCOPE);
  assert.deepEqual([out.status, out.reason, out.replies], ["unavailable", "timeout", []]);
});

Deno.test("readReply() fails closed when a page of the turn does not advance", async () => {
  const { session } = scriptedSession({
    "thread/items/list": (p) =>
      p.turnId ? { data: [], nextCursor: "more" } : { data: [entry(user)], nextCursor: null },
    "thread/turns/list": () => completed,
  });
  const out = await readReply(session, SCOPE);
  assert.equal(out.status, "unavailable");
  assert.equal(out.reason, "protocol_error");
});

Deno.test("readReply() reads at most MAX_TURN_PAGES pages of the turn, then hands a cursor", async () => {
  let served = 0;
  const { session, calls } = scriptedSession({
    "thread/items/list": (p) => {
      if (!p.turnId) return { data: [entry(user)], nextCursor: null };
      served++;
      const filler = { type: "reasoning", id: `r${served}`, summary: [] };
      return { data: [entry(filler)], nextCursor: "more" };
    },
    "thread/turns/list": () => completed,
  });
  const out = await readReply(session, SCOPE);
  assert.equal(served, MAX_TURN_PAGES);
  assert.equal(out.status, "observed");
  const cursor = decodeCursor(out.nextCursor!, { ...SCOPE, kind: "reply" });
  assert.equal(cursor.lastItemId, `r${MAX_TURN_PAGES}`);
  const pages = calls.filter(([m, p]) => m === "thread/items/list" && p.turnId);
  assert.deepEqual(pages[1][1].cursor, { type: "item", itemId: "r1" }, "item anchors continue");
});

Deno.test("readReply() drops every reply when a later page is malformed", async () => {
  const { session } = scriptedSession({
    "thread/items/list": (p) => {
      if (!p.turnId) return { data: [entry(user)], nextCursor: null };
      if (!p.cursor) return { data: [entry(user), entry(final("m1", "early"))], nextCursor: "x" };
      return { data: [entry({ type: "agentMessage", id: "m2", text: 5 })], nextCursor: null };
    },
    "thread/turns/list": () => completed,
  });
  const out = await readReply(session, SCOPE);
  assert.equal(out.status, "unavailable");
  assert.equal(out.reason, "protocol_error");
  assert.deepEqual(out.replies, []);
});

Deno.test("readReply() refuses a cursor of neither kind before any RPC", async () => {
  const { session, calls } = scriptedSession({});
  const out = await readReply(session, { ...SCOPE, cursor: "e30" });
  assert.equal(out.reason, "invalid_cursor");
  assert.deepEqual(calls, []);
});

Deno.test("readReply() a reply cursor gives no text once a second message with the same clientMessageId is in the thread, as a fresh read does", async () => {
  const TURN2 = "01a22a5c-6700-7f43-a294-c1ac8dd820af";
  const duplicate = { type: "userMessage", id: "u2", clientId: "c1", content: [] };
  let searchPage = [entry(user)];
  const { session } = scriptedSession({
    "thread/items/list": (p) =>
      p.turnId
        ? { data: [entry(user), entry(final("m1", "first"))], nextCursor: null }
        : { data: searchPage, nextCursor: null },
    "thread/items/read": () => ({ data: [entry(user)], nextCursor: null }),
    "thread/turns/list": () => ({
      data: [{ id: TURN, status: "inProgress", completedAt: null }],
      nextCursor: null,
    }),
  });
  const first = await readReply(session, SCOPE);
  assert.equal(first.status, "observed");
  assert.deepEqual(first.replies.map((r) => "text" in r ? r.text : undefined), ["first"]);
  const cursor = first.nextCursor!;
  assert.equal(typeof cursor, "string", "the turn runs on: a reply cursor");

  // A later turn takes a second message with the same clientMessageId.
  searchPage = [{ turnId: TURN2, item: duplicate }, entry(user)];
  const fresh = await readReply(session, SCOPE);
  assert.equal(fresh.status, "ambiguous");
  for (const refresh of [false, true]) {
    const out = await readReply(session, { ...SCOPE, cursor, refresh });
    assert.equal(out.status, "ambiguous", `refresh: ${refresh}`);
    assert.deepEqual(out.replies, [], `refresh: ${refresh}: no text`);
    assert.equal(out.nextCursor, null, `refresh: ${refresh}: nothing to continue`);
  }

  // The original is older than the search page: the page's one match is the other message.
  searchPage = [{ turnId: TURN2, item: duplicate }];
  const out = await readReply(session, { ...SCOPE, cursor, refresh: true });
  assert.equal(out.status, "ambiguous");
  assert.deepEqual(out.replies, []);
});

Deno.test("readReply() a reply cursor still continues when its message is the only one with that id", async () => {
  const { session } = scriptedSession({
    "thread/items/list": (p) =>
      p.turnId
        ? { data: [entry(user), entry(final("m1", "first"))], nextCursor: null }
        : { data: [entry(user)], nextCursor: null },
    "thread/items/read": () => ({ data: [entry(user)], nextCursor: null }),
    "thread/turns/list": () => completed,
  });
  const cursor = encodeCursor({
    v: 1,
    kind: "reply",
    ...SCOPE,
    userItemId: "u1",
    turnId: TURN,
    lastItemId: null,
  });
  const out = await readReply(session, { ...SCOPE, cursor });
  assert.equal(out.status, "observed");
  assert.deepEqual(out.replies.map((r) => "text" in r ? r.text : undefined), ["first"]);
});

Deno.test("readTurn() answers a turn with no message of its own (a compaction's) by its stored status, no replies; a turn another process ran or abandoned is unverified", async () => {
  const answers = [
    [{ id: TURN, status: "completed", completedAt: 1 }, "completed"],
    [{ id: TURN, status: "inProgress", completedAt: null }, "running"],
    [{ id: TURN, status: "interrupted", completedAt: null }, "unverified"],
    [{ id: "another", status: "completed", completedAt: 1 }, "unverified"],
  ] as const;
  for (const [turn, status] of answers) {
    const { session, calls } = scriptedSession({
      "thread/turns/list": () => ({ data: [turn], nextCursor: null }),
    });
    const out = await readTurn(session, SCOPE, TURN);
    assert.deepEqual(out, {
      status: "observed",
      ...SCOPE,
      association: "same_turn_not_exclusive",
      turn: { id: TURN, status },
      replies: [],
      nextCursor: null,
      searchCursor: null,
    });
    assert.deepEqual(calls, [["thread/turns/list", {
      threadId: THREAD,
      limit: 50,
      sortDirection: "desc",
      itemsView: "notLoaded",
    }]]);
  }
});
