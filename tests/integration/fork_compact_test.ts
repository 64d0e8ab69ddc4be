/**
 * codex_fork and codex_compact (issue 42) through `mod.ts serve` with the fixture playing
 * transcripts 24: a fork of a thread another process holds is a new thread with its history; a
 * fork of a thread where this relay runs a turn is refused; a compaction is a run of its own
 * (one per thread, followed, interrupted midway).
 */

import assert from "assert";
import { callTool } from "../../testing/call_tool.ts";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";
import type { Scenario } from "../../fixtures/scenario.ts";

type Relay = Awaited<ReturnType<typeof startRelay>>;

const FLAGS = ["--allow-turn-start", "--allow-reply-read"];

async function withRelay(
  s: Scenario,
  fn: (relay: Relay, f: FixtureHome) => Promise<void>,
  mode: "spawn" | "daemon" = "spawn",
) {
  const f = await FixtureHome.create(s);
  const flags = [...FLAGS, "--app-server", mode];
  const relay = await startRelay({ fixture: f, flags, protocol: "2026-07-28" });
  const { code, left } = await closeAfter(relay, f, () => fn(relay, f));
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(left, [], "no helper is left in the process table");
}

const sent = async (f: FixtureHome, method: string) =>
  (await f.requests()).filter((r) => r.method === method).map((r) => r.params);

const done = { id: "01a23563-c0b5-7440-a9b7-000000000001", status: "completed", items: [] };

for (const mode of ["spawn", "daemon"] as const) {
  Deno.test(`[${mode}] codex_fork of a thread another process holds: a new thread, named, that codex_run runs in`, async () => {
    const t = thread({ heldElsewhere: true, turns: [done as never] });
    await withRelay({ threads: [t] }, async (relay, f) => {
      const r = await callTool(relay.client, "codex_fork", { threadId: t.id, name: "plan b" });
      const out = r.structuredContent;
      assert.equal(out.status, "forked", JSON.stringify(out));
      assert.notEqual(out.newThreadId, t.id);
      assert.equal(out.name, "plan b");
      assert.equal(out.cwd, t.cwd);
      assert.match((r.content as { text: string }[])[0].text, /^Forked thread /);
      assert.deepEqual(await sent(f, "thread/fork"), [{ threadId: t.id, excludeTurns: true }]);
      const run = (await callTool(relay.client, "codex_run", {
        threadId: out.newThreadId!,
        text: "go on",
      })).structuredContent;
      assert.equal(run.turn?.status, "completed", "the fork is not held elsewhere");
      const original = (await callTool(relay.client, "codex_run", { threadId: t.id, text: "x" }))
        .structuredContent;
      assert.equal(original.reason, "held_elsewhere", "the original stays the other process's");
    }, mode);
  });
}

Deno.test("codex_fork of a thread where this relay runs a turn: not_forked, turn_running, nothing sent", async () => {
  const t = thread({ scripts: [[{ barrier: "turn" }, { end: "completed" }]] });
  await withRelay({ threads: [t] }, async (relay, f) => {
    const gate = await f.barrier("turn");
    const run = (await callTool(relay.client, "codex_run", {
      threadId: t.id,
      text: "long",
      waitSeconds: 1,
    })).structuredContent;
    assert.equal(run.turn?.status, "running");
    await gate.reached();
    const out = (await callTool(relay.client, "codex_fork", { threadId: t.id })).structuredContent;
    assert.deepEqual(
      { status: out.status, reason: out.reason },
      { status: "not_forked", reason: "turn_running" },
    );
    assert.deepEqual(await sent(f, "thread/fork"), []);
    await gate.release();
  });
});

for (const mode of ["spawn", "daemon"] as const) {
  Deno.test(`[${mode}] codex_compact: a run of its own, one per thread, interrupted midway it ends interrupted`, async () => {
    const t = thread();
    const s: Scenario = { threads: [t], compactSteps: [{ barrier: "compact" }] };
    await withRelay(s, async (relay, f) => {
      const gate = await f.barrier("compact");
      const out =
        (await callTool(relay.client, "codex_compact", { threadId: t.id, waitSeconds: 1 }))
          .structuredContent;
      assert.equal(out.turn?.status, "running", JSON.stringify(out));
      assert.equal(out.receipt.status, "queued");
      await gate.reached();
      const again = (await callTool(relay.client, "codex_compact", { threadId: t.id }))
        .structuredContent;
      assert.equal(again.reason, "turn_running");
      const steer = (await callTool(relay.client, "codex_steer", { threadId: t.id, text: "x" }))
        .structuredContent;
      assert.deepEqual({ status: steer.status, kind: steer.kind }, {
        status: "not_steerable",
        kind: "compact",
      });
      const stopped = (await callTool(relay.client, "codex_interrupt", { threadId: t.id }))
        .structuredContent;
      assert.equal(stopped.status, "interrupted", JSON.stringify(stopped));
      assert.equal(stopped.turn?.status, "interrupted");
      assert.deepEqual((await sent(f, "turn/interrupt")).map((p) => p.turnId), [out.turn?.id]);
      assert.deepEqual(await sent(f, "thread/compact/start"), [{ threadId: t.id }]);
    }, mode);
  });
}

Deno.test("codex_compact to its end: completed with the compaction's usage", async () => {
  const t = thread();
  await withRelay({ threads: [t] }, async (relay) => {
    const out = (await callTool(relay.client, "codex_compact", { threadId: t.id }))
      .structuredContent;
    assert.equal(out.turn?.status, "completed", JSON.stringify(out));
    assert.equal(out.usage?.totalTokens, 15);
  });
});
