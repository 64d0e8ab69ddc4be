/**
 * Issue 20, item 6: a thread UUID in uppercase names the same thread as in
 * lowercase (Codex parses it), so the relay keys everything by the lowercase
 * form: the one-runtime-per-thread guard holds and a wait with it wakes at
 * the turn's end. Through `mod.ts serve`, in spawn and daemon mode.
 */

import assert from "assert";
import { agentItem, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { callTool, type ToolName } from "../../testing/call_tool.ts";

type Structured = Record<string, unknown>;

const MODES = [
  { name: "spawn", flags: [] as string[] },
  { name: "daemon", flags: ["--app-server", "daemon"] },
];

for (const mode of MODES) {
  Deno.test(`${mode.name}: an uppercase thread UUID is the same thread: one runtime, and its wait wakes`, async () => {
    const t = thread({
      scripts: [[{ barrier: "hold" }, { item: agentItem("a1", "Done.") }, { end: "completed" }]],
    });
    const upper = t.id.toUpperCase();
    assert.notEqual(upper, t.id);
    const f = await FixtureHome.create({ threads: [t] });
    const relay = await startRelay({
      fixture: f,
      flags: ["--allow-reply-read", "--allow-turn-start", ...mode.flags],
      protocol: "2026-07-28",
    });
    const call = async <N extends ToolName>(name: N, args: Structured) =>
      (await callTool(relay.client, name, args, { timeout: 60_000 })).structuredContent;
    try {
      const hold = await f.barrier("hold");
      const first = await call("codex_run", { threadId: upper, text: "go", waitSeconds: 1 });
      assert.equal(first.turn?.status, "running");
      assert.equal(first.threadId, t.id, "results carry the canonical (lowercase) id");
      await hold.reached();

      for (const ref of [upper, t.id]) {
        const second = await call("codex_run", { threadId: ref, text: "again", waitSeconds: 1 });
        assert.equal(second.reason, "turn_running", `${ref}: ${JSON.stringify(second)}`);
        assert.equal(second.receipt.status, "not_sent");
      }
      const resumes = (await f.requests()).filter((r) => r.method === "thread/resume");
      assert.equal(resumes.length, 1, "one resume: no second runtime on the thread");

      const began = performance.now();
      const waiting = call("codex_wait_reply", {
        threadId: upper,
        clientMessageId: first.receipt.clientMessageId,
        timeoutSeconds: 30,
      });
      await hold.release();
      const waited = await waiting;
      assert.equal(waited.timedOut, false, JSON.stringify(waited));
      assert.equal(waited.threadId, t.id);
      assert.match(JSON.stringify(waited), /Done\./);
      assert.ok(performance.now() - began < 20_000, "woken by the turn's end, not the timeout");
    } finally {
      const { code } = await relay.close();
      assert.equal(code, 0, "the relay exits 0 on stdin EOF");
      await f.dispose();
    }
  });
}
