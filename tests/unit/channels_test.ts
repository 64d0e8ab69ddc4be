/** Protects: when `serve --channels` pushes a run's end (src/host/channels.ts): once, never seen, bounded. */
import assert from "assert";
import { CHANNEL_RUNS_MAX, type ChannelMessage, RunPush } from "../../src/host/channels.ts";
import type { FinishedRun } from "../../src/turn/run_book.ts";
import { silentLogger } from "../../src/core/log.ts";

const T = "01a22a5c-6698-7df3-813e-7166a248c477";

function finished(id: string): FinishedRun {
  return {
    snapshot: {
      threadId: T,
      clientMessageId: id,
      phase: "completed",
      turnId: "u1",
      itemsCompleted: 1,
      declinedRequests: [],
      queuedAhead: [],
      notes: [],
    },
    replies: {
      status: "observed",
      threadId: T,
      clientMessageId: id,
      turn: { id: "u1", status: "completed" },
      replies: [{ itemId: "i", text: `answer ${id}`, truncated: false }],
      nextCursor: null,
      searchCursor: null,
    },
  };
}

function rig() {
  const sent: ChannelMessage[] = [];
  const ends = new Map<string, PromiseWithResolvers<FinishedRun>>();
  const push = new RunPush({
    send: (m) => {
      sent.push(m);
      return Promise.resolve();
    },
    runOf: (_t, id) => {
      const end = Promise.withResolvers<FinishedRun>();
      ends.set(id, end);
      return end.promise;
    },
    log: silentLogger,
  });
  const started = (id: string) =>
    push.resulted("codex_run", {
      receipt: { status: "queued", threadId: T, clientMessageId: id },
      turn: { id: "u1", status: "running" },
    });
  const end = async (id: string) => {
    ends.get(id)!.resolve(finished(id));
    await ends.get(id)!.promise;
    await Promise.resolve();
  };
  return { push, sent, started, end, ends };
}

Deno.test("RunPush: a run that ends unwatched is pushed once, with meta", async () => {
  const { sent, started, end } = rig();
  started("m1");
  await end("m1");
  await end("m1");
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0].params.meta, {
    thread_id: T,
    client_message_id: "m1",
    status: "completed",
  });
  assert.match(sent[0].params.content, /answer m1/);
});

Deno.test("RunPush: never for a run whose end a result showed, nor one a wait call waits on", async () => {
  const { push, sent, started, end } = rig();
  started("seen");
  push.resulted("codex_read_reply", {
    clientMessageId: "seen",
    turn: { id: "u1", status: "completed" },
  });
  await end("seen");
  started("waited");
  const done = push.callStarted("codex_wait_reply", { messages: [{ clientMessageId: "waited" }] });
  await end("waited");
  done();
  assert.equal(sent.length, 0);
  // A final codex_run result is never watched.
  push.resulted("codex_run", {
    receipt: { status: "queued", threadId: T, clientMessageId: "final" },
    turn: { id: "u1", status: "completed" },
  });
  assert.equal(push.watching, 0);
});

Deno.test("RunPush: a burst is bounded: at most CHANNEL_RUNS_MAX runs watched, each sent as it ends", async () => {
  const { push, sent, started, end, ends } = rig();
  for (let i = 0; i < CHANNEL_RUNS_MAX + 5; i++) started(`m${i}`);
  assert.equal(push.watching, CHANNEL_RUNS_MAX);
  for (let i = 0; i < CHANNEL_RUNS_MAX; i++) await end(`m${i}`);
  assert.equal(sent.length, CHANNEL_RUNS_MAX);
  assert.equal(push.watching, 0);
  assert.equal(ends.has(`m${CHANNEL_RUNS_MAX}`), false);
});

/** A logger that keeps its warnings. */
function warnings() {
  const said: [string, unknown][] = [];
  const log = {
    ...silentLogger,
    warn: (event: string, fields?: unknown) => said.push([event, fields]),
  };
  return { said, log };
}

Deno.test("RunPush: a wait that returned before the run ended does not hold its push; one wait by id alone", async () => {
  const { push, sent, started, end } = rig();
  started("m1");
  const done = push.callStarted("codex_wait_reply", { clientMessageId: "m1" });
  done();
  await end("m1");
  assert.equal(sent.length, 1, "the wait returned before the end: pushed");
  started("m2");
  const open = push.callStarted("codex_wait_reply", { clientMessageId: "m2" });
  await end("m2");
  open();
  assert.equal(sent.length, 1, "a wait open at the end returns it: not pushed");
  // Other calls, or waits on other messages, hold nothing.
  started("m3");
  const others = [
    push.callStarted("codex_read_reply", { clientMessageId: "m3" }),
    push.callStarted("codex_wait_reply", { messages: [{ clientMessageId: "zz" }, {}, null] }),
    push.callStarted("codex_wait_reply", { clientMessageId: 3 }),
    push.callStarted("codex_wait_reply", null),
  ];
  await end("m3");
  for (const done of others) done();
  assert.deepEqual(sent.map((m) => m.params.meta.client_message_id), ["m1", "m3"]);
});

Deno.test("RunPush: only a queued codex_run or codex_review that names its message is watched, once", async () => {
  const { push, sent, end, ends } = rig();
  const result = (receipt: Record<string, unknown>, tool = "codex_run") =>
    push.resulted(tool, { receipt, turn: { id: "u1", status: "running" } });
  result({ status: "queued", threadId: T, clientMessageId: "q" }, "codex_queue_message");
  result({ status: "queued", threadId: T, clientMessageId: "s" }, "codex_steer");
  result({ status: "not_sent", threadId: T, clientMessageId: "n" });
  result({ status: "queued", clientMessageId: "t" });
  result({ status: "queued", threadId: T });
  push.resulted("codex_run", undefined);
  assert.equal(push.watching, 0);
  assert.equal(ends.size, 0, "nothing asked for");
  result({ status: "queued", threadId: T, clientMessageId: "r" }, "codex_review");
  assert.equal(push.watching, 1);
  const first = ends.get("r")!;
  result({ status: "queued", threadId: T, clientMessageId: "r" });
  assert.equal(ends.get("r"), first, "watched already: not asked again");
  await end("r");
  assert.equal(sent.length, 1);
  assert.equal(push.watching, 0);
});

Deno.test("RunPush: a run it cannot find, or whose end fails, is dropped with nothing sent", async () => {
  const sent: ChannelMessage[] = [];
  const failing = Promise.withResolvers<FinishedRun>();
  const push = new RunPush({
    send: (m) => (sent.push(m), Promise.resolve()),
    runOf: (_t, id) => id === "gone" ? undefined : failing.promise,
    log: silentLogger,
  });
  const started = (id: string) =>
    push.resulted("codex_run", {
      receipt: { status: "queued", threadId: T, clientMessageId: id },
      turn: { id: "u1", status: "running" },
    });
  started("gone");
  assert.equal(push.watching, 0);
  started("lost");
  assert.equal(push.watching, 1);
  failing.reject(new Error("connection lost"));
  await failing.promise.catch(() => {});
  await Promise.resolve();
  assert.equal(push.watching, 0);
  assert.equal(sent.length, 0);
});

Deno.test("RunPush: the status is the turn's, or the read's when it has no turn; a failed send is logged, never thrown", async () => {
  const { said, log } = warnings();
  const sent: ChannelMessage[] = [];
  const end = Promise.withResolvers<FinishedRun>();
  const push = new RunPush({
    send: (m) => {
      sent.push(m);
      return Promise.reject(new Error("x".repeat(500)));
    },
    runOf: () => end.promise,
    log,
  });
  push.resulted("codex_run", {
    receipt: { status: "queued", threadId: T, clientMessageId: "m1" },
    turn: { id: "u1", status: "running" },
  });
  const run = finished("m1");
  run.replies = { ...run.replies!, status: "unavailable", turn: null, replies: [] };
  end.resolve(run);
  await end.promise;
  for (let i = 0; i < 5; i++) await Promise.resolve();
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0], {
    jsonrpc: "2.0",
    method: "notifications/claude/channel",
    params: {
      content: sent[0].params.content,
      meta: { thread_id: T, client_message_id: "m1", status: "unavailable" },
    },
  });
  assert.match(sent[0].params.content, /^Codex run ended: unavailable \(thread /);
  assert.deepEqual(said, [["channels: not sent", { error: `Error: ${"x".repeat(193)}` }]]);
});

Deno.test("RunPush: past the bound, a run is not watched and the log says so", () => {
  const { said, log } = warnings();
  const push = new RunPush({
    send: () => Promise.resolve(),
    runOf: () => new Promise(() => {}),
    log,
  });
  for (let i = 0; i <= CHANNEL_RUNS_MAX; i++) {
    push.resulted("codex_run", {
      receipt: { status: "queued", threadId: T, clientMessageId: `m${i}` },
      turn: { id: "u1", status: "running" },
    });
  }
  assert.equal(push.watching, CHANNEL_RUNS_MAX);
  assert.deepEqual(said, [["channels: too many runs watched; not pushed", { max: 64 }]]);
});
