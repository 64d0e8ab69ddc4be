import assert from "assert";
import { scriptedSession } from "../../testing/scripted_session.ts";
import { RelayError } from "../../src/core/errors.ts";
import type { Session } from "../../src/connect/connection.ts";
import { NOT_QUEUED_HERE, withdrawMessage } from "../../src/ops/withdraw_message.ts";
import { withdrawSchema } from "../../src/reply/schemas.ts";
import { QueuedHere } from "../../src/ops/queued_here.ts";

const THREAD = "01a22a5c-6698-7df3-813e-7166a248c477";
const CID = "cid-1";

const listed = (...cids: (string | null)[]) => () => ({
  data: cids.map((c, i) => ({ id: `sub-${i}`, clientUserMessageId: c })),
  nextCursor: null,
});
const here = (threadId = THREAD, cid = CID) => {
  const q = new QueuedHere();
  q.record(threadId, cid);
  return q;
};
const userItem = (clientId: string) => ({
  turnId: "turn-1",
  item: { type: "userMessage", id: "u1", clientId, content: [] },
});
const items = (cids: string[], nextCursor: string | null = null) => () => ({
  data: cids.map(userItem),
  nextCursor,
});
const withdraw = (s: Session, options: { readItems?: boolean; queuedHere?: QueuedHere } = {}) =>
  withdrawMessage(s, THREAD, CID, {
    readItems: options.readItems ?? false,
    queuedHere: options.queuedHere ?? here(),
  });

Deno.test("withdrawMessage deletes its own listed message once and says withdrawn", async () => {
  const s = scriptedSession({
    "thread/queue/list": listed("other", CID),
    "thread/queue/delete": () => ({ deleted: true }),
  });
  assert.deepEqual(await withdraw(s.session), {
    status: "withdrawn",
    threadId: THREAD,
    clientMessageId: CID,
  });
  assert.deepEqual(s.calls, [
    ["thread/queue/list", { threadId: THREAD }],
    ["thread/queue/delete", { threadId: THREAD, queuedSubmissionId: "sub-1" }],
  ]);
});

Deno.test("withdrawMessage never deletes a listed message this relay did not queue", async () => {
  for (
    const queuedHere of [
      new QueuedHere(),
      here("01a22a5c-6698-7df3-813e-000000000000"),
      here(THREAD, "x"),
    ]
  ) {
    const s = scriptedSession({ "thread/queue/list": listed(CID) });
    assert.deepEqual(await withdraw(s.session, { queuedHere, readItems: true }), {
      status: "not_found",
      reason: "not_queued_here",
      message: NOT_QUEUED_HERE,
      threadId: THREAD,
      clientMessageId: CID,
    });
    assert.deepEqual(s.methods(), ["thread/queue/list"], "no delete was sent");
  }
});

Deno.test("withdrawMessage: a delete whose answer was lost is unknown and never sent again; a refused one unavailable", async () => {
  const lost = scriptedSession({
    "thread/queue/list": listed(CID),
    "thread/queue/delete": () => {
      throw new RelayError("timeout", "No answer", { written: true });
    },
  });
  assert.deepEqual(await withdraw(lost.session), {
    status: "unknown",
    reason: "timeout",
    message:
      "The delete was sent but its answer was lost, so the message may or may not still be queued. It was not sent again",
    threadId: THREAD,
    clientMessageId: CID,
  });
  assert.deepEqual(lost.methods(), ["thread/queue/list", "thread/queue/delete"]);
  for (
    const error of [
      new RelayError("busy", "not sent", { written: false }),
      new RelayError("protocol_error", "refused", { written: true, rpcCode: -32600 }),
    ]
  ) {
    const s = scriptedSession({
      "thread/queue/list": listed(CID),
      "thread/queue/delete": () => {
        throw error;
      },
    });
    assert.deepEqual(await withdraw(s.session), {
      status: "unavailable",
      reason: error.reason,
      message: error.message,
      threadId: THREAD,
      clientMessageId: CID,
    });
    assert.deepEqual(s.methods(), ["thread/queue/list", "thread/queue/delete"]);
  }
});

Deno.test("withdrawMessage: a malformed answer to the delete is unknown (it reached Codex), never resent", async () => {
  const s = scriptedSession({
    "thread/queue/list": listed(CID),
    "thread/queue/delete": () => ({ deleted: "yes" }),
  });
  const out = await withdraw(s.session);
  assert.equal(out.status, "unknown");
  assert.equal(out.reason, "protocol_error");
  assert.match(out.message ?? "", /reached Codex but its answer could not be read/);
  assert.deepEqual(s.methods(), ["thread/queue/list", "thread/queue/delete"]);
});

Deno.test("withdrawMessage: a thread that cannot be resolved, or a queue that cannot be read, is unavailable, nothing deleted", async () => {
  const noName = scriptedSession({ "thread/list": () => ({ data: [], nextCursor: null }) });
  const r = await withdrawMessage(noName.session, "my thread", CID, {
    readItems: true,
    queuedHere: here(),
  });
  assert.equal(r.status, "unavailable");
  assert.equal(r.reason, "thread_not_found");
  assert.match(r.message!, /^No thread has exactly this name/);
  assert.deepEqual([r.threadId, r.clientMessageId], ["my thread", CID]);
  const named = scriptedSession({
    "thread/list": () => ({
      data: [{ id: THREAD, name: "my thread", status: { type: "notLoaded" }, updatedAt: 1 }],
      nextCursor: null,
    }),
    "thread/queue/list": () => {
      throw new RelayError("timeout", "No answer", { written: true });
    },
  });
  const unread = await withdrawMessage(named.session, "my thread", CID, {
    readItems: true,
    queuedHere: here(),
  });
  assert.deepEqual(unread, {
    status: "unavailable",
    reason: "timeout",
    message: "No answer",
    threadId: THREAD,
    clientMessageId: CID,
  });
  assert.deepEqual(named.methods(), ["thread/list", "thread/queue/list"]);
});

Deno.test("withdrawMessage: a message not in the queue is not_found, or already_taken when its item is read", async () => {
  const notListed = { "thread/queue/list": listed("other") };
  const blind = scriptedSession(notListed);
  assert.deepEqual(await withdraw(blind.session), {
    status: "not_found",
    message:
      "It is not in the thread's queue: Codex already took it, or it was never queued there. Telling these apart needs --allow-reply-read",
    threadId: THREAD,
    clientMessageId: CID,
  });
  assert.deepEqual(blind.methods(), ["thread/queue/list"]);

  const taken = scriptedSession({ ...notListed, "thread/items/list": items(["x", CID]) });
  assert.deepEqual(await withdraw(taken.session, { readItems: true }), {
    status: "already_taken",
    message: "Codex already took it: its turn started, so it can no longer be withdrawn",
    threadId: THREAD,
    clientMessageId: CID,
  });
  assert.deepEqual(taken.calls[1], ["thread/items/list", {
    threadId: THREAD,
    sortDirection: "desc",
    limit: 100,
  }]);
  const twice = scriptedSession({ ...notListed, "thread/items/list": items([CID, CID]) });
  assert.equal((await withdraw(twice.session, { readItems: true })).status, "already_taken");

  const never = scriptedSession({ ...notListed, "thread/items/list": items(["x"]) });
  const r = await withdraw(never.session, { readItems: true });
  assert.deepEqual([r.status, r.reason, r.message], [
    "not_found",
    undefined,
    "It is neither in the thread's queue nor among its items",
  ]);
  const more = scriptedSession({ ...notListed, "thread/items/list": items(["x"], "c1") });
  assert.equal(
    (await withdraw(more.session, { readItems: true })).message,
    "It is neither in the thread's queue nor among its newest 100 items",
  );
  const unreadable = scriptedSession({
    ...notListed,
    "thread/items/list": () => {
      throw new RelayError("timeout", "No answer", { written: true });
    },
  });
  const u = await withdraw(unreadable.session, { readItems: true });
  assert.deepEqual([u.status, u.reason, u.message], [
    "not_found",
    "timeout",
    "It is not in the thread's queue; whether Codex already took it could not be read (timeout)",
  ]);
});

Deno.test("withdrawMessage: listed, then gone at the delete: Codex took it (read), or not_found", async () => {
  const gone = {
    "thread/queue/list": listed(CID),
    "thread/queue/delete": () => ({ deleted: false }),
  };
  const taken = scriptedSession({ ...gone, "thread/items/list": items([CID]) });
  assert.equal((await withdraw(taken.session, { readItems: true })).status, "already_taken");
  assert.deepEqual(taken.methods(), [
    "thread/queue/list",
    "thread/queue/delete",
    "thread/items/list",
  ]);
  const blind = scriptedSession(gone);
  assert.equal((await withdraw(blind.session)).status, "not_found");
  assert.deepEqual(blind.methods(), ["thread/queue/list", "thread/queue/delete"]);
});

Deno.test("withdrawMessage: a message neither listed nor queued here is plainly not in the queue; every result fits the schema", async () => {
  const s = scriptedSession({ "thread/queue/list": listed("other") });
  const r = await withdraw(s.session, { queuedHere: new QueuedHere() });
  assert.equal(r.status, "not_found");
  assert.equal(r.reason, undefined, "not not_queued_here: nothing of anyone else was listed");
  assert.match(r.message!, /^It is not in the thread's queue/);
  assert.deepEqual(withdrawSchema.parse(r), r);
  assert.match(NOT_QUEUED_HERE, /codex-relay did not queue it .* so the delete was not sent$/);
  assert.throws(() =>
    withdrawSchema.parse({ status: "gone", threadId: THREAD, clientMessageId: CID })
  );
});
