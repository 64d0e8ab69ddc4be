/**
 * A client that stops the relay with a signal waits only briefly before a
 * harder one (Claude Code: SIGINT, then SIGTERM after 100 ms, logging
 * "SIGINT failed"): the relay started as users start it exits 0 well within
 * that, with a read open on a helper that ignores stdin EOF and SIGTERM, and
 * leaves no process behind.
 */
import assert from "assert";
import { FixtureHome, thread, turn, userItem } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";

/** Claude Code's wait between SIGINT and SIGTERM. */
const CLIENT_PATIENCE_MS = 100;

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test(`the relay exits within ${CLIENT_PATIENCE_MS} ms of ${signal} while a read is open`, async () => {
    const t = thread({ turns: [turn([userItem("c1")], { status: "inProgress" })] });
    const f = await FixtureHome.create({
      threads: [t],
      startup: { stubborn: true },
      faults: [{ method: "thread/items/list", barrier: "read" }],
    });
    const relay = await startRelay({
      fixture: f,
      protocol: "2026-07-28",
      flags: ["--allow-reply-read"],
    });
    try {
      const read = await f.barrier("read");
      const waiting = callTool(relay.client, "codex_wait_reply", {
        threadId: t.id,
        clientMessageId: "c1",
        timeoutSeconds: 30,
      }).catch((e) => e);
      await read.reached();
      const sent = performance.now();
      Deno.kill(relay.transport.pid!, signal);
      const status = await relay.transport.exited;
      const tookMs = performance.now() - sent;
      assert.equal(status.code, 0);
      assert.ok(tookMs < CLIENT_PATIENCE_MS, `exited ${Math.round(tookMs)} ms after ${signal}`);
      await waiting;
      assert.deepEqual(f.alive(), [], "the helper's process group is gone");
    } finally {
      await relay.close();
      await f.dispose();
    }
  });
}
