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
