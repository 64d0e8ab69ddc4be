/**
 * Issue 46, item 6: a `codex_run {cwd}` the client cancels (notifications/cancelled) at its first
 * steps, before its new thread exists, leaves no trace, as the design says: no thread is started,
 * nothing is queued and no run is listed (there is no thread to list it under). Through
 * `mod.ts serve` against the fixture, in spawn and daemon mode.
 */

import assert from "assert";
import { callTool } from "../../testing/call_tool.ts";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";

for (const mode of [[], ["--app-server", "daemon"]]) {
  Deno.test(`[${mode.length ? "daemon" : "spawn"}] the client's cancel of codex_run {cwd} at its login check: no thread, nothing queued, nothing listed`, async () => {
    const f = await FixtureHome.create({
      threads: [thread()],
      faults: [{ method: "account/read", once: "early", nth: 1, barrier: "early" }],
    });
    const relay = await startRelay({
      fixture: f,
      flags: ["--allow-turn-start", "--allow-reply-read", ...mode],
      protocol: "2026-07-28",
    });
    const { code, left } = await closeAfter(relay, f, async () => {
      const early = await f.barrier("early");
      const controller = new AbortController();
      const call = callTool(relay.client, "codex_run", { cwd: "/tmp", text: "go" }, {
        signal: controller.signal,
        timeout: 60_000,
      }).then(() => "answered", () => "rejected");
      await early.reached();
      controller.abort(new Error("the user cancelled"));
      assert.equal(await call, "rejected");
      await early.release();
      // The next call is answered after the cancelled start unwound (one connection, in order).
      for (let look = 0; look < 3; look++) {
        const out = (await callTool(relay.client, "codex_list_threads", {})).structuredContent;
        assert.deepEqual(out.runs, [], "no run is listed");
      }
      const sent = (await f.requests()).map((r) => r.method);
      assert.ok(
        !sent.some((m) => m === "thread/start" || m.startsWith("thread/queue/")),
        `${sent}`,
      );
    });
    assert.equal(code, 0);
    assert.deepEqual(left, []);
  });
}
