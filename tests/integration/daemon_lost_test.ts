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
import type { Scenario } from "../../fixtures/scenario.ts";
import { callTool } from "../../testing/call_tool.ts";

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
