/**
 * What the relay's stdio side promises a script or a greedy client: every
 * request read before stdin EOF is answered within the shutdown bound, and a
 * flood of pipelined requests left unread is held back (stdin is not read
 * past the bound) and then answered in full.
 */

import assert from "assert";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import {
  INITIALIZED,
  initializeRequest,
  RawStdioRelay,
  toolCall,
} from "../../testing/raw_relay.ts";
import { SHUTDOWN_BOUND_MS } from "../../testing/mcp_client.ts";
import { MAX_UNANSWERED } from "../../src/host/wire_budget.ts";

type Msg = Record<string, unknown>;
const structured = (m: Msg | undefined) =>
  (m?.result as { structuredContent?: Msg } | undefined)?.structuredContent;

Deno.test("stdin EOF right after the last request: initialize, tools/list and a call are all answered (the printf case)", async () => {
  const f = await FixtureHome.create({ threads: [thread({ name: "alpha" })] });
  const relay = new RawStdioRelay(f.env);
  try {
    relay.readStdout();
    await relay.write(
      initializeRequest(1),
      INITIALIZED,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      toolCall(3, "codex_list_threads"),
    );
    await relay.closeStdin();
    const status = await relay.exited(SHUTDOWN_BOUND_MS + 5_000);
    assert.equal(status.code, 0, relay.stderr);
    const answers = relay.answers();
    assert.deepEqual([...answers.keys()], [1, 2, 3], "each request answered once");
    assert.ok((answers.get(2)![0].result as { tools?: unknown[] }).tools?.length);
    assert.equal(structured(answers.get(3)![0])?.status, "ok", JSON.stringify(answers.get(3)));
    assert.deepEqual(f.alive(), [], "no helper left");
  } finally {
    await relay.dispose();
    await f.dispose();
  }
});

Deno.test("stdin EOF with a codex_queue_message in flight: it gets its honest receipt, the others their results, within the shutdown bound", async () => {
  const alpha = thread({ name: "alpha" });
  const f = await FixtureHome.create({
    threads: [alpha],
    faults: [{ method: "thread/queue/add", barrier: "hold" }],
  });
  const relay = new RawStdioRelay(f.env);
  try {
    const hold = await f.barrier("hold");
    relay.readStdout();
    await relay.write(initializeRequest(1), INITIALIZED);
    await relay.until(() => relay.answers().has(1), "initialize answered");
    await relay.write(toolCall("queue", "codex_queue_message", { threadId: alpha.id, text: "hi" }));
    await hold.reached(); // The message was written to Codex; no acknowledgement will come.
    await relay.write(toolCall("list", "codex_list_threads"), {
      jsonrpc: "2.0",
      id: "tools",
      method: "tools/list",
    });
    const eof = performance.now();
    await relay.closeStdin();
    const status = await relay.exited(SHUTDOWN_BOUND_MS + 5_000);
    const shutdownMs = Math.round(performance.now() - eof);
    console.error(`shutdown with a queue call in flight: ${shutdownMs} ms`);
    assert.equal(status.code, 0, relay.stderr);
    assert.ok(shutdownMs < SHUTDOWN_BOUND_MS, `exited ${shutdownMs} ms after EOF`);
    const answers = relay.answers();
    assert.deepEqual([...answers.keys()].sort(), [1, "list", "queue", "tools"]);
    for (const [id, list] of answers) assert.equal(list.length, 1, `${id} answered once`);
    assert.equal(structured(answers.get("list")![0])?.status, "ok");
    const receipt = structured(answers.get("queue")![0]);
    // Written and never acknowledged: it may have been stored, so it is neither queued nor not_sent.
    assert.equal(receipt?.status, "unknown", JSON.stringify(receipt));
    assert.equal(receipt?.reason, "cancelled");
    assert.equal(receipt?.threadId, alpha.id);
    assert.deepEqual(f.alive(), [], "no helper left");
  } finally {
    await relay.dispose();
    await f.dispose();
  }
});

Deno.test(`a flood of pipelined tools/list left unread: the relay stops reading at ${MAX_UNANSWERED} unanswered, then answers every one`, async () => {
  const f = await FixtureHome.create({ threads: [thread({ name: "alpha" })] });
  const relay = new RawStdioRelay(f.env, ["--log-level", "debug"]);
  const n = MAX_UNANSWERED * 3;
  let writing: Promise<void> | undefined;
  try {
    // Stdout stays unread: the relay's answers fill the pipe and stay owed.
    await relay.write(initializeRequest(0), INITIALIZED);
    const lines = Array.from({ length: n }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/list",
    }));
    writing = relay.write(...lines); // Blocks once the relay stops reading: not awaited yet.
    await relay.until(() => /stdin paused/.test(relay.stderr), "the relay pausing stdin");
    const paused = relay.stderr.match(/stdin paused bound="(\w+)" unanswered=(\d+)/);
    assert.ok(paused, relay.stderr.slice(-2000));
    assert.equal(paused[1], "requests");
    assert.equal(Number(paused[2]), MAX_UNANSWERED, "read exactly up to the bound, not past it");
    relay.readStdout();
    await writing;
    await relay.until(() => relay.answers().size === n + 1, `all ${n + 1} answered`);
    await relay.write(toolCall("after", "codex_list_threads"));
    await relay.until(() => relay.answers().has("after"), "a call after the flood answered");
    assert.equal(structured(relay.answers().get("after")![0])?.status, "ok");
    const answers = relay.answers();
    for (let id = 0; id <= n; id++) {
      assert.equal(answers.get(id)?.length, 1, `request ${id} answered once`);
      assert.ok(answers.get(id)![0].result, `request ${id} has a result`);
    }
    await relay.closeStdin();
    assert.equal((await relay.exited()).code, 0);
  } finally {
    await relay.dispose();
    await writing?.catch(() => {});
    await f.dispose();
  }
});
