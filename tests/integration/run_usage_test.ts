/**
 * What a run cost and how far its thread can go (issue 42) through `mod.ts serve` with the
 * fixture: `usage` from `thread/tokenUsage/updated` in codex_run's and codex_wait_reply's results
 * (absent, and said so, when Codex sent none).
 */

import assert from "assert";
import { callTool, type ToolName } from "../../testing/call_tool.ts";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";
import type { Scenario } from "../../fixtures/scenario.ts";

type Relay = Awaited<ReturnType<typeof startRelay>>;

const FLAGS = ["--allow-turn-start", "--allow-reply-read"];

async function call<N extends ToolName>(relay: Relay, name: N, args: Record<string, unknown>) {
  const r = await callTool(relay.client, name, args, { timeout: 60_000 });
  assert.ok(r.structuredContent, `${name} answered with structuredContent`);
  return { out: r.structuredContent, text: (r.content as { text: string }[])[0].text };
}

async function withRelay(
  s: Scenario,
  fn: (relay: Relay, f: FixtureHome) => Promise<void>,
  flags = FLAGS,
): Promise<void> {
  const f = await FixtureHome.create(s);
  const relay = await startRelay({ fixture: f, flags, protocol: "2026-07-28" });
  const { code, left } = await closeAfter(relay, f, () => fn(relay, f));
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(left, [], "no helper is left in the process table");
}

const counts = (input: number, output: number, reasoning = 0) => ({
  inputTokens: input,
  cachedInputTokens: 0,
  outputTokens: output,
  reasoningTokens: reasoning,
  totalTokens: input + output,
});

Deno.test("codex_run and codex_wait_reply carry the turn's usage, the context and the thread's total", async () => {
  const t = thread({ scripts: [[{ end: "completed" }], [{ end: "completed" }]] });
  const s: Scenario = {
    threads: [t],
    tokenUsage: { inputTokens: 1200, outputTokens: 300, reasoningOutputTokens: 40 },
  };
  await withRelay(s, async (relay) => {
    const first = await call(relay, "codex_run", { threadId: t.id, text: "one" });
    assert.equal(first.out.turn?.status, "completed");
    assert.deepEqual(first.out.usage, {
      ...counts(1200, 300, 40),
      contextWindow: 258400,
      contextUsed: 1500,
      threadTotal: counts(1200, 300, 40),
    });
    assert.match(first.text, /Tokens: 1500 \(input 1200.*context used 1500 of 258400/);
    const second = await call(relay, "codex_run", { threadId: t.id, text: "two" });
    assert.deepEqual(second.out.usage?.threadTotal, counts(2400, 600, 80), "the thread's total");
    assert.equal(second.out.usage?.totalTokens, 1500, "this turn's own");
    const waited = await call(relay, "codex_wait_reply", {
      threadId: t.id,
      clientMessageId: second.out.receipt.clientMessageId,
      timeoutSeconds: 5,
    });
    assert.deepEqual(waited.out.usage, second.out.usage);
  });
});

Deno.test("codex_run without Codex's token usage: usage absent (never zeros), and the text says so", async () => {
  const t = thread({ scripts: [[{ end: "completed" }]] });
  await withRelay({ threads: [t], tokenUsage: false }, async (relay) => {
    const run = await call(relay, "codex_run", { threadId: t.id, text: "one" });
    assert.equal(run.out.turn?.status, "completed");
    assert.equal("usage" in run.out, false);
    assert.match(run.text, /Codex reported no token usage for this turn/);
  });
});
