/**
 * `codex_list_threads` at the turn-start level: one look at this relay's
 * runs (thread, clientMessageId, state, startedAt), through `mod.ts serve`
 * with the fixture, in spawn and daemon mode. A run is listed while it runs
 * (`waiting_for_approval` with how many requests wait), an ended one by the
 * next look only; below the turn-start level the field does not exist. In
 * daemon mode a second relay process lists the turn the first one started
 * (the daemon runs it on after the first exited), and does not interrupt it.
 */

import assert from "assert";
import { callTool } from "../../testing/call_tool.ts";
import type { ElicitResult } from "@modelcontextprotocol/client";
import { commandApproval, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";
import { isRunId } from "../../src/reply/run_id.ts";

type Structured = Record<string, unknown>;
type Client = Awaited<ReturnType<typeof startRelay>>["client"];

const APPROVAL = commandApproval();

const TURN_FLAGS = ["--allow-turn-start", "--allow-reply-read"];

async function runs(client: Client): Promise<Structured[]> {
  const out = (await callTool(client, "codex_list_threads", {})).structuredContent;
  assert.ok(Array.isArray(out.runs), `runs in ${JSON.stringify(out)}`);
  return out.runs;
}

for (const mode of ["spawn", "daemon"] as const) {
  Deno.test(`[${mode}] codex_list_threads lists a run waiting for approval (with the count), running, then ended once, then not at all`, async () => {
    const t = thread({
      scripts: [[APPROVAL, { barrier: "after-approval" }, { end: "completed" }]],
    });
    const f = await FixtureHome.create({ threads: [t] });
    const asked = Promise.withResolvers<void>();
    const answer = Promise.withResolvers<ElicitResult>();
    const relay = await startRelay({
      fixture: f,
      flags: [...TURN_FLAGS, "--app-server", mode],
      protocol: "2026-07-28",
      onElicit: () => {
        asked.resolve();
        return answer.promise;
      },
    });
    const { code, left } = await closeAfter(relay, f, async () => {
      const client = relay.client;
      const before = Date.now();
      const after = await f.barrier("after-approval");
      const run = callTool(client, "codex_run", { threadId: t.id, text: "go", waitSeconds: 50 }, {
        timeout: 60_000,
      });
      await asked.promise;
      const waiting = await runs(client);
      assert.equal(waiting.length, 1, JSON.stringify(waiting));
      const [w] = waiting;
      assert.equal(w.threadId, t.id);
      assert.ok(isRunId(String(w.clientMessageId)), `a codex_run id: ${w.clientMessageId}`);
      assert.equal(w.state, "waiting_for_approval");
      assert.equal(w.pendingRequests, 1);
      assert.ok(Date.parse(String(w.startedAt)) >= before - 1000, `startedAt ${w.startedAt}`);
      assert.equal(w.otherRelay, undefined, "this relay's own run");
      answer.resolve({ action: "accept", content: { decision: "accept" } });
      await after.reached();
      const running = await runs(client);
      assert.deepEqual(running.map((r) => [r.clientMessageId, r.state, r.pendingRequests]), [
        [w.clientMessageId, "running", undefined],
      ]);
      await after.release();
      const done = (await run).structuredContent;
      assert.equal(done.turn?.status, "completed");
      assert.equal(done.receipt.clientMessageId, w.clientMessageId);
      const ended = await runs(client);
      assert.deepEqual(ended.map((r) => [r.clientMessageId, r.state, r.startedAt]), [
        [w.clientMessageId, "completed", w.startedAt],
      ]);
      assert.deepEqual(await runs(client), [], "an ended run is listed by one look only");
    });
    assert.equal(code, 0);
    assert.deepEqual(left, [], "no helper is left in the process table");
  });
}

for (const flags of [[], ["--allow-reply-read"]]) {
  Deno.test(`below the turn-start level (${flags.join(" ") || "default"}) codex_list_threads has no runs field, in its schema or its result`, async () => {
    const t = thread();
    const f = await FixtureHome.create({ threads: [t] });
    const relay = await startRelay({ fixture: f, flags, protocol: "2026-07-28" });
    const { code } = await closeAfter(relay, f, async () => {
      const { tools } = await relay.client.listTools();
      const list = tools.find((x) => x.name === "codex_list_threads")!;
      const props = (list.outputSchema as { properties: Structured }).properties;
      assert.deepEqual(Object.keys(props).sort(), [
        "message",
        "next",
        "nextCursor",
        "reason",
        "sources",
        "status",
        "threads",
      ]);
      const out = (await callTool(relay.client, "codex_list_threads", {})).structuredContent;
      assert.equal(out.status, "ok");
      assert.ok(!("runs" in out));
      assert.doesNotMatch(list.description ?? "", /runs/);
    });
    assert.equal(code, 0);
  });
}

Deno.test("[turn start] codex_list_threads advertises runs and lists none before any run", async () => {
  const t = thread();
  const f = await FixtureHome.create({ threads: [t] });
  const relay = await startRelay({ fixture: f, flags: TURN_FLAGS, protocol: "2026-07-28" });
  const { code } = await closeAfter(relay, f, async () => {
    const { tools } = await relay.client.listTools();
    const list = tools.find((x) => x.name === "codex_list_threads")!;
    assert.ok("runs" in (list.outputSchema as { properties: Structured }).properties);
    assert.deepEqual(await runs(relay.client), []);
  });
  assert.equal(code, 0);
});

Deno.test("[daemon] a second relay process lists the turn the first started (the daemon runs it on after the first exited) and does not interrupt it", async () => {
  const t = thread({
    loadedWith: { sandbox: "workspace-write", approvalPolicy: "on-request" },
    scripts: [[{ barrier: "never-released" }, { end: "completed" }]],
  });
  const f = await FixtureHome.create({ threads: [t] });
  const flags = [...TURN_FLAGS, "--app-server", "daemon"];
  const first = await startRelay({ fixture: f, flags, protocol: "2026-07-28" });
  let cmid = "";
  const held = await f.barrier("never-released");
  try {
    const [run] = await Promise.all([
      callTool(first.client, "codex_run", { threadId: t.id, text: "go", waitSeconds: 1 }),
      held.reached(),
    ]);
    assert.equal(run.structuredContent.turn?.status, "running");
    cmid = run.structuredContent.receipt.clientMessageId;
  } finally {
    const { code } = await first.close();
    assert.equal(code, 0, "the first relay exits 0, leaving its turn to the daemon");
  }
  const second = await startRelay({ fixture: f, flags, protocol: "2026-07-28" });
  const { code, left } = await closeAfter(second, f, async () => {
    const listed = await runs(second.client);
    assert.deepEqual(listed.map((r) => [r.threadId, r.clientMessageId, r.state, r.otherRelay]), [
      [t.id, cmid, "running", true],
    ]);
    assert.ok(Date.parse(String(listed[0].startedAt)) > 0);
    // Ended runs of this process only: an earlier process's run is listed while it runs.
    assert.equal((await runs(second.client)).length, 1);
    const out = (await callTool(second.client, "codex_interrupt", { threadId: t.id }))
      .structuredContent;
    assert.equal(out.status, "not_running");
    assert.ok(!(await f.requests()).some((r) => r.method === "turn/interrupt"));
    // Followed once codex_wait_reply attached to it, the earlier process's run counts as this
    // relay's: codex_interrupt stops it (docs/design.md, codex_interrupt).
    const waited = await callTool(second.client, "codex_wait_reply", {
      threadId: t.id,
      clientMessageId: cmid,
      timeoutSeconds: 1,
    });
    assert.equal(waited.structuredContent.timedOut, true);
    const stopped = await callTool(second.client, "codex_interrupt", { threadId: t.id });
    assert.equal(stopped.structuredContent.status, "interrupted", JSON.stringify(stopped));
    assert.equal((await f.requests()).filter((r) => r.method === "turn/interrupt").length, 1);
  });
  assert.equal(code, 0);
  assert.deepEqual(left, []);
});
