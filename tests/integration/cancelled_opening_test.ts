/**
 * Issue 46, item 6 (the flaky "codex_interrupt while codex_run starts" of
 * tests/e2e/mcp_startup_e2e_test.ts): a run interrupted while the turn host it
 * needs is still starting (slow under load) answered `cancelled` at once and
 * reaped that app-server later, so a check right after the calls found it.
 * Now a start that gives up the opening (no other hold waits for it) cancels
 * it and reaps its app-server before it answers: once `codex_run` answered,
 * the turn host is gone, even one that never finishes its `initialize`.
 */

import assert from "assert";
import { callTool } from "../../testing/call_tool.ts";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";

Deno.test("codex_interrupt while the turn host initializes: once codex_run answers cancelled, that app-server is gone", async () => {
  const t = thread();
  // The first process spawned is the turn host (codex_run holds it before any step).
  const f = await FixtureHome.create({
    threads: [t],
    faults: [{ method: "initialize", once: "host", barrier: "host" }],
  });
  const relay = await startRelay({
    fixture: f,
    flags: ["--allow-turn-start", "--allow-reply-read"],
    protocol: "2026-07-28",
  });
  const { code, left } = await closeAfter(relay, f, async () => {
    const opening = await f.barrier("host");
    const run = callTool(relay.client, "codex_run", { threadId: t.id, text: "go" }, {
      timeout: 60_000,
    });
    await opening.reached();
    const [host] = await f.spawned();
    const stop = (await callTool(relay.client, "codex_interrupt", { threadId: t.id }))
      .structuredContent;
    assert.equal(stop.status, "interrupted", JSON.stringify(stop));
    // Its initialize is never answered: the cancelled start gives up the opening and reaps it.
    const out = (await run).structuredContent;
    assert.deepEqual([out.receipt.status, out.reason], ["not_sent", "cancelled"]);
    assert.equal(f.helperOf(host), undefined, "the turn host is reaped before codex_run answers");
  });
  assert.equal(code, 0);
  assert.deepEqual(left, []);
});
