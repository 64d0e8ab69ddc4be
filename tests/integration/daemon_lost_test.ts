/**
 * A lost daemon through the real entry point (`serve --app-server daemon`),
 * with the fixture proxy standing in for `codex app-server proxy`: like
 * Codex's, it outlives its daemon with stdout open and exits only when next
 * written to. Followers of a turn learn of the loss at once, and a
 * connection found dead is never written to.
 */

import assert from "assert";
import { type FixtureHome, thread, withFixture } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { within } from "../../testing/deadline.ts";
import type { FixtureThread, Scenario } from "../../fixtures/scenario.ts";
import { callTool } from "../../testing/call_tool.ts";
import capture171 from "../../fixtures/captures/46-compact-usage-review-0.171.0.json" with {
  type: "json",
};

import { FRESH_MS } from "../../src/connect/daemon/liveness.ts";

type Structured = Record<string, unknown>;

/**
 * `codex app-server daemon stop`: new proxies find no daemon, the running
 * one's app-server is killed, and the proxy reports it noticed (it stays up).
 */
async function stopDaemon(f: FixtureHome, s: Scenario): Promise<void> {
  await f.write({ ...s, proxy: { noDaemon: true } });
  for (const pid of await f.spawned()) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  await within(
    (async () => {
      // The proxy logs when its app-server is gone; polling the log is the only signal.
      while (!(await f.log()).some((e) => e.event === "proxy-daemon-gone")) {
        await new Promise((r) => setTimeout(r, 20));
      }
    })(),
    "the fixture proxy noticing its daemon is gone",
  );
}

async function proxies(f: FixtureHome): Promise<number> {
  return (await f.log()).filter((e) => e.event === "proxy").length;
}

Deno.test("daemon stopped while the relay is idle: the next codex_queue_message is not written into the dead connection; one redial, then not_sent daemon_unavailable", async () => {
  const t = thread({ name: "alpha" });
  const s: Scenario = { threads: [t] };
  await withFixture(s, async (f) => {
    const relay = await startRelay({
      fixture: f,
      flags: ["--app-server", "daemon"],
      protocol: "2026-07-28",
    });
    try {
      const listed = (await callTool(relay.client, "codex_list_threads", {}))
        .structuredContent;
      assert.equal(listed.status, "ok");
      await stopDaemon(f, s);
      // Idle: nothing heard for longer than the fresh window, so the next write is probed first.
      // (A daemon that dies within it is written to once: tests/unit/daemon_loss_test.ts.)
      await new Promise((r) => setTimeout(r, FRESH_MS));
      const q =
        (await callTool(relay.client, "codex_queue_message", { threadId: t.id, text: "hi" }))
          .structuredContent;
      assert.equal(q.status, "not_sent", JSON.stringify(q));
      assert.equal(q.reason, "daemon_unavailable");
      const adds = (await f.requests()).filter((r) => r.method === "thread/queue/add");
      assert.equal(adds.length, 0, "nothing was written");
      assert.equal(await proxies(f), 2, "redialled once");
    } finally {
      const { code } = await relay.close();
      assert.equal(code, 0);
    }
  });
});

for (const tool of ["codex_run", "codex_wait_reply"] as const) {
  Deno.test(`daemon stopped during a turn: ${tool} following it answers connection_lost at once, not at the end of its wait`, async () => {
    const t = thread({ name: "alpha", scripts: [[{ barrier: "turn" }, { end: "completed" }]] });
    const s: Scenario = { threads: [t] };
    await withFixture(s, async (f) => {
      const relay = await startRelay({
        fixture: f,
        flags: ["--app-server", "daemon", "--allow-turn-start", "--allow-reply-read"],
        protocol: "2026-07-28",
      });
      try {
        const turn = await f.barrier("turn");
        const started = callTool(relay.client, "codex_run", {
          threadId: t.id,
          text: "go",
          waitSeconds: tool === "codex_run" ? 30 : 1,
        }, { timeout: 60_000 });
        await turn.reached();
        let following: Promise<{ structuredContent: Structured }> = started;
        if (tool === "codex_wait_reply") {
          const run = (await started).structuredContent;
          assert.equal(run.turn?.status, "running");
          const clientMessageId = run.receipt.clientMessageId;
          const followingNow = Promise.withResolvers<void>();
          following = callTool(relay.client, "codex_wait_reply", {
            threadId: t.id,
            clientMessageId,
            timeoutSeconds: 30,
          }, { timeout: 60_000, onprogress: () => followingNow.resolve() });
          // The wait follows the turn (its first progress says so) before the daemon stops.
          await within(followingNow.promise, "codex_wait_reply following the turn");
        }
        await stopDaemon(f, s);
        const lost = performance.now();
        const out = (await following).structuredContent;
        const ms = Math.round(performance.now() - lost);
        console.error(`${tool}: connection_lost ${ms} ms after the daemon was gone`);
        assert.equal(out.reason, "connection_lost", JSON.stringify(out));
        assert.ok(ms < 1_000, `answered ${ms} ms after the loss`);
        if (tool === "codex_wait_reply") {
          // unavailable is final: timedOut is true exactly when a result is not final.
          assert.equal(out.status, "unavailable", JSON.stringify(out));
          assert.equal(out.timedOut, false, JSON.stringify(out));
        }
        // The run stays listed with what is known: lost, and since when.
        const listed = (await callTool(relay.client, "codex_list_threads", {})).structuredContent;
        const runs = listed.runs ?? [];
        assert.equal(runs.length, 1, JSON.stringify(listed));
        assert.equal(runs[0].state, "lost", JSON.stringify(runs));
        assert.equal(runs[0].threadId, t.id);
        const lostAt = Date.parse(String(runs[0].lostAt));
        assert.ok(lostAt >= Date.parse(String(runs[0].startedAt)), JSON.stringify(runs));
        assert.ok(Math.abs(Date.now() - lostAt) < 60_000, JSON.stringify(runs));
      } finally {
        await relay.close();
      }
    });
  });
}

Deno.test("daemon stopped while codex_wait_reply {messages} follows a run: the message answers unavailable connection_lost at once, final (timedOut false)", async () => {
  const t = thread({ scripts: [[{ barrier: "turn" }, { end: "completed" }]] });
  const s: Scenario = { threads: [t] };
  await withFixture(s, async (f) => {
    const relay = await startRelay({
      fixture: f,
      flags: ["--app-server", "daemon", "--allow-turn-start", "--allow-reply-read"],
      protocol: "2026-07-28",
    });
    try {
      const turn = await f.barrier("turn");
      const started = callTool(relay.client, "codex_run", {
        threadId: t.id,
        text: "go",
        waitSeconds: 1,
      }, {
        timeout: 60_000,
      });
      await turn.reached();
      const run = (await started).structuredContent;
      const clientMessageId = run.receipt!.clientMessageId;
      const followingNow = Promise.withResolvers<void>();
      const following = callTool(relay.client, "codex_wait_reply", {
        messages: [{ threadId: t.id, clientMessageId }],
        timeoutSeconds: 30,
      }, { timeout: 60_000, onprogress: () => followingNow.resolve() });
      await within(followingNow.promise, "codex_wait_reply following the turn");
      await stopDaemon(f, s);
      const out = (await within(following, "the wait answering", 5_000)).structuredContent;
      const [one] = out.messages ?? [];
      assert.equal(one.status, "unavailable", JSON.stringify(out));
      assert.equal(one.reason, "connection_lost", JSON.stringify(out));
      assert.equal(one.timedOut, false, JSON.stringify(out));
      assert.equal(out.done, 1);
    } finally {
      await relay.close();
    }
  });
});

/**
 * A compaction followed until the daemon connection is lost (its run listed `lost`), then the
 * daemon back. `loaded`: the daemon still has the thread loaded and the turn ended meanwhile
 * (stored `completed`, as Codex running it on would); otherwise the daemon restarted and the thread
 * is `notLoaded`, its turn abandoned (read as `interrupted` with no end). The compaction's
 * `thread/tokenUsage/updated` (captures 46) come before the loss.
 */
async function lostCompaction(
  loaded: boolean,
  back: (relay: Relay, f: FixtureHome, t: FixtureThread, out: CompactOut) => Promise<void>,
): Promise<void> {
  const t = thread({
    name: "alpha",
    ...(loaded ? { loadedWith: { sandbox: "workspace-write", approvalPolicy: "on-request" } } : {}),
  });
  const usage = capture171.compaction.compactionUsage.map((p) => ({
    notify: {
      method: "thread/tokenUsage/updated",
      params: { ...p, threadId: "$threadId", turnId: "$turnId" },
    },
  }));
  const s: Scenario = {
    threads: [t],
    tokenUsage: false,
    compactSteps: [...usage, { barrier: "compacting" }],
  };
  await withFixture(s, async (f) => {
    const relay = await startRelay({
      fixture: f,
      flags: ["--app-server", "daemon", "--allow-turn-start", "--allow-reply-read"],
      protocol: "2026-07-28",
    });
    try {
      const gate = await f.barrier("compacting");
      const out =
        (await callTool(relay.client, "codex_compact", { threadId: t.id, waitSeconds: 1 }))
          .structuredContent;
      await gate.reached();
      assert.equal(out.turn?.status, "running", JSON.stringify(out));
      const turnId = out.turn?.id;
      assert.ok(turnId, "its turn started before the loss");
      const clientMessageId = out.receipt!.clientMessageId;
      // Followed while it runs, a wait that times out says so by its turn (no message to find).
      const running = (await callTool(relay.client, "codex_wait_reply", {
        threadId: t.id,
        clientMessageId,
        timeoutSeconds: 1,
      })).structuredContent;
      assert.equal(running.status, "observed", JSON.stringify(running));
      assert.deepEqual([running.turn, running.timedOut], [{ id: turnId, status: "running" }, true]);
      const followingNow = Promise.withResolvers<void>();
      const following = callTool(relay.client, "codex_wait_reply", {
        threadId: t.id,
        clientMessageId,
        timeoutSeconds: 30,
      }, { timeout: 60_000, onprogress: () => followingNow.resolve() });
      await within(followingNow.promise, "codex_wait_reply following the compaction");
      await stopDaemon(f, s);
      const lost = (await following).structuredContent;
      assert.equal(lost.reason, "connection_lost", JSON.stringify(lost));
      assert.equal(lost.usage?.totalTokens, 15, "its request counted before the loss");
      const runs = (await callTool(relay.client, "codex_list_threads", {})).structuredContent.runs;
      assert.deepEqual(runs?.map((r) => [r.clientMessageId, r.state]), [[clientMessageId, "lost"]]);
      if (loaded) {
        // The daemon ran the compaction on to its end while the relay could not see it (the
        // fixture's next app-server stands for it: the killed one's hold ends with it).
        for (const pid of await f.spawned()) await f.release(t.id, pid);
        await f.updateTurn(t.id, { id: turnId, status: "completed", completedAt: 1796006990 });
      }
      await f.write(s); // The daemon is back.
      await back(relay, f, t, out);
    } finally {
      const { code } = await relay.close();
      assert.equal(code, 0);
    }
  });
}

type Relay = Awaited<ReturnType<typeof startRelay>>;
type CompactOut = Awaited<ReturnType<typeof callTool<"codex_compact">>>["structuredContent"];

Deno.test("a lost compaction, the daemon back with its thread loaded: codex_read_reply and codex_wait_reply of its id answer its turn completed (the wait with its usage), never not_found", async () => {
  await lostCompaction(true, async (relay, f, t, out) => {
    const ref = { threadId: t.id, clientMessageId: out.receipt!.clientMessageId };
    const read = (await callTool(relay.client, "codex_read_reply", ref)).structuredContent;
    assert.equal(read.status, "observed", JSON.stringify(read));
    assert.deepEqual(read.turn, { id: out.turn!.id, status: "completed" });
    const waited = (await callTool(relay.client, "codex_wait_reply", {
      ...ref,
      timeoutSeconds: 10,
    })).structuredContent;
    assert.equal(waited.status, "observed", JSON.stringify(waited));
    assert.deepEqual(waited.turn, { id: out.turn!.id, status: "completed" });
    assert.equal(waited.timedOut, false);
    assert.deepEqual(
      [waited.usage?.inputTokens, waited.usage?.outputTokens, waited.usage?.totalTokens],
      [10, 5, 15],
      "the compaction's one request, as counted before the loss",
    );
    const again = (await callTool(relay.client, "codex_read_reply", ref)).structuredContent;
    assert.deepEqual([again.status, again.turn], ["observed", waited.turn], "read after its end");
    // Attached to the turn on the loaded thread: no longer listed lost.
    assert.ok((await f.requests()).some((r) => r.method === "thread/resume"));
    const runs = (await callTool(relay.client, "codex_list_threads", {})).structuredContent.runs;
    assert.deepEqual(runs?.map((r) => r.state), ["completed"]);
  });
});

Deno.test("a lost compaction, the daemon restarted (its thread notLoaded): the wait and the read of its id say its turn is unverified, never not_found, and nothing loads the thread", async () => {
  await lostCompaction(false, async (relay, f, t, out) => {
    const ref = { threadId: t.id, clientMessageId: out.receipt!.clientMessageId };
    const resumes = (await f.requests()).filter((r) => r.method === "thread/resume").length;
    const read = (await callTool(relay.client, "codex_read_reply", ref)).structuredContent;
    assert.equal(read.status, "observed", JSON.stringify(read));
    assert.deepEqual(read.turn, { id: out.turn!.id, status: "unverified" });
    const waited = (await callTool(relay.client, "codex_wait_reply", {
      ...ref,
      timeoutSeconds: 1,
    })).structuredContent;
    assert.equal(waited.status, "observed", JSON.stringify(waited));
    assert.deepEqual(waited.turn, { id: out.turn!.id, status: "unverified" });
    const after = (await f.requests()).filter((r) => r.method === "thread/resume").length;
    assert.equal(after, resumes, "no thread/resume after the daemon came back");
  });
});
