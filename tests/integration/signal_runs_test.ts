/**
 * SIGINT/SIGTERM while `codex_run` calls are in flight (issue 46, item 6): each is answered
 * `cancelled` at once, as the contract says ("A signal ends work"), whether its turn was running
 * (it answered `running`, "Follow it with codex_wait_reply", before) or its start was still
 * waiting for Codex; the relay exits 0 and leaves no process behind.
 */
import assert from "assert";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test(`${signal}: codex_run calls running and starting are answered cancelled`, async () => {
    const running = thread({ scripts: [[{ barrier: "turn" }, { end: "completed" }]] });
    const starting = thread();
    const f = await FixtureHome.create({
      threads: [running, starting],
      faults: [{ method: "thread/queue/add", nth: 2, barrier: "add" }],
    });
    const relay = await startRelay({
      fixture: f,
      protocol: "2026-07-28",
      flags: ["--allow-turn-start", "--allow-reply-read"],
    });
    try {
      const barriers = [await f.barrier("turn"), await f.barrier("add")];
      const call = (threadId: string) =>
        callTool(relay.client, "codex_run", { threadId, text: "hi", waitSeconds: 50 });
      const calls = [];
      for (const [i, t] of [running, starting].entries()) {
        calls.push([["running", "starting"][i], call(t.id)] as const);
        await barriers[i].reached();
      }
      Deno.kill(relay.transport.pid!, signal);
      for (const [name, pending] of calls) {
        const result = await pending;
        const out = result.structuredContent!;
        assert.equal(out.reason, "cancelled", `${name}: ${JSON.stringify(out)}`);
        const text = (result.content as { text: string }[])[0].text;
        assert.doesNotMatch(text, /Follow it with codex_wait_reply or stop it/, name);
      }
      const status = await relay.transport.exited;
      assert.equal(status.code, 0);
      assert.deepEqual(f.alive(), [], "no helper is left");
    } finally {
      await relay.close();
      await f.dispose();
    }
  });
}
