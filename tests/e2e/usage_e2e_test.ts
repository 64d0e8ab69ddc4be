/**
 * What a run cost and how far a thread can go (issue 42) against the real `codex app-server`
 * with the Responses mock: a turn's `usage` from Codex's `thread/tokenUsage/updated`.
 *
 * Run: `deno test -P tests/e2e/usage_e2e_test.ts` with codex in `.codex-npm/` or `CODEX_BIN`.
 */
import assert from "node:assert/strict";
import { e2eCodex, withWorld } from "./_relay_e2e.ts";
import { callTool } from "../../testing/call_tool.ts";

const BIN = e2eCodex("tests/e2e/usage_e2e_test.ts");
const ignore = BIN === null;
const FLAGS = ["--allow-turn-start", "--allow-reply-read"];
const LONG = { timeout: 90_000, resetTimeoutOnProgress: true };

Deno.test({
  name: "e2e codex_run: usage from a real turn, the thread's total growing with the next",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const relay = await w.relay(FLAGS);
      const cwd = w.home.workspace;
      const first = (await callTool(relay.client, "codex_run", { cwd, text: "count one" }, LONG))
        .structuredContent;
      assert.equal(first.turn?.status, "completed", JSON.stringify(first));
      const u = first.usage;
      assert.ok(u, "Codex told the turn's usage");
      assert.ok(u.totalTokens > 0 && u.inputTokens > 0 && u.outputTokens > 0, JSON.stringify(u));
      assert.ok(u.contextWindow === null || u.contextWindow > u.contextUsed, JSON.stringify(u));
      assert.deepEqual(u.threadTotal.totalTokens, u.totalTokens, "the thread's first turn");
      const second = (await callTool(relay.client, "codex_run", {
        threadId: first.threadId,
        text: "count two",
      }, LONG)).structuredContent;
      assert.ok(second.usage, "the second turn's usage");
      assert.equal(
        second.usage.threadTotal.totalTokens,
        u.totalTokens + second.usage.totalTokens,
        "the thread's total is the sum of its turns",
      );
    }),
});

Deno.test({
  name:
    "e2e codex_usage with an API-key login: limits and a thread's cost unavailable (account_required)",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const relay = await w.relay(FLAGS);
      const cwd = w.home.workspace;
      const run = (await callTool(relay.client, "codex_run", { cwd, text: "hi" }, LONG))
        .structuredContent;
      const r = await callTool(relay.client, "codex_usage", { threadId: run.threadId }, LONG);
      assert.notEqual(r.isError, true, JSON.stringify(r.content));
      const out = r.structuredContent;
      assert.equal(out.status, "unavailable", JSON.stringify(out));
      assert.equal(out.reason, "account_required");
      assert.equal(out.thread?.threadId, run.threadId);
      assert.equal(out.thread?.status, "unavailable", JSON.stringify(out.thread));
    }),
});
