/**
 * Issue 20, item 6: codex_withdraw_message deletes only messages this relay
 * queued; a delete answered `deleted: false` is never reported withdrawn.
 * Through `mod.ts serve` (spawn mode, the turn-start level, where codex_withdraw_message is).
 */

import assert from "assert";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import type { Scenario } from "../../fixtures/scenario.ts";
import { callTool, type ToolName } from "../../testing/call_tool.ts";

type Structured = Record<string, unknown>;
type Relay = Awaited<ReturnType<typeof startRelay>>;

async function withRelay(s: Scenario, fn: (relay: Relay, f: FixtureHome) => Promise<void>) {
  const f = await FixtureHome.create(s);
  const relay = await startRelay({
    fixture: f,
    protocol: "2026-07-28",
    flags: ["--allow-turn-start"],
  });
  try {
    await fn(relay, f);
  } finally {
    const { code } = await relay.close();
    assert.equal(code, 0, "the relay exits 0 on stdin EOF");
    await f.dispose();
  }
}

async function call<N extends ToolName>(relay: Relay, name: N, args: Structured) {
  const r = await callTool(relay.client, name, args, { timeout: 60_000 });
  return {
    out: r.structuredContent,
    text: (r.content as { text: string }[])[0].text,
  };
}

async function removed(f: FixtureHome): Promise<string[]> {
  const text = await Deno.readTextFile(`${f.home}/fixture-state.jsonl`).catch(() => "");
  return text.split("\n").filter(Boolean).map((l) => JSON.parse(l))
    .filter((e) => e.e === "queue.remove").map((e) => e.id);
}

Deno.test("codex_withdraw_message leaves the user's own queued message alone (not_queued_here); its own it withdraws", async () => {
  const t = thread();
  await withRelay({ threads: [t] }, async (relay, f) => {
    const users = await f.queueAsUser(t.id, "users-own-message");
    const theirs = await call(relay, "codex_withdraw_message", {
      threadId: t.id,
      clientMessageId: "users-own-message",
    });
    assert.equal(theirs.out.status, "not_found", theirs.text);
    assert.equal(theirs.out.reason, "not_queued_here");
    assert.match(theirs.text, /codex-relay did not queue it/);
    assert.match(
      theirs.text,
      /Nothing was deleted\. Only a message this codex-relay process queued/,
    );
    const methods = (await f.requests()).map((r) => r.method);
    assert.ok(!methods.includes("thread/queue/delete"), "no delete was sent");
    assert.deepEqual(await removed(f), [], "the user's message stays queued");

    // The same thread, a message the relay queued: withdrawn.
    const q = await call(relay, "codex_queue_message", { threadId: t.id, text: "oops" });
    const mine = await call(relay, "codex_withdraw_message", {
      threadId: t.id,
      clientMessageId: q.out.clientMessageId as string,
    });
    assert.equal(mine.out.status, "withdrawn", mine.text);
    assert.deepEqual(await removed(f), [q.out.queuedSubmissionId], "only the relay's own");
    assert.notEqual(users, q.out.queuedSubmissionId);
  });
});

Deno.test("codex_withdraw_message never reports withdrawn when Codex answers deleted: false", async () => {
  const t = thread();
  const s: Scenario = {
    threads: [t],
    faults: [{ method: "thread/queue/delete", action: { result: { deleted: false } } }],
  };
  await withRelay(s, async (relay, f) => {
    const q = await call(relay, "codex_queue_message", { threadId: t.id, text: "oops" });
    const w = await call(relay, "codex_withdraw_message", {
      threadId: t.id,
      clientMessageId: q.out.clientMessageId as string,
    });
    assert.equal((await f.requests()).filter((r) => r.method === "thread/queue/delete").length, 1);
    assert.notEqual(w.out.status, "withdrawn", w.text);
    assert.equal(w.out.status, "not_found");
    assert.doesNotMatch(w.text, /^Withdrawn/);
  });
});
