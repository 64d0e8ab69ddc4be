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
import authCapture from "../../fixtures/captures/46-auth-json.json" with { type: "json" };

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

Deno.test("codex_usage with an API-key login: unavailable (account_required) naming why, not an error", async () => {
  const t = thread();
  await withRelay({ threads: [t] }, async (relay, f) => {
    const r = await callTool(relay.client, "codex_usage", { threadId: t.id });
    assert.notEqual(r.isError, true);
    const out = r.structuredContent;
    assert.equal(out.status, "unavailable");
    assert.equal(out.reason, "account_required");
    assert.match(out.message!, /ChatGPT login; it is logged in with an API key/);
    assert.deepEqual(
      { status: out.thread?.status, reason: out.thread?.reason },
      { status: "unavailable", reason: "account_required" },
    );
    const text = (r.content as { text: string }[])[0].text;
    assert.match(text, /Limits unavailable \(account_required\)/);
    const sent = (await f.requests()).map((q) => q.method);
    assert.ok(sent.includes("account/rateLimits/read") && sent.includes("account/usage/read"));
  });
});

Deno.test("codex_usage without a login (an unreadable auth.json): not_logged_in, as codex_run says", async () => {
  const t = thread();
  // What Codex 0.169 and 0.171 answer with a corrupt auth.json and the OpenAI provider (captures 46).
  const corrupt = authCapture.captures[1].cases.find((c) => c.auth === "{not json")!;
  const account = corrupt["account/read"];
  await withRelay({ threads: [t], account }, async (relay) => {
    const usage = await call(relay, "codex_usage", { threadId: t.id });
    assert.deepEqual([usage.out.status, usage.out.reason], ["unavailable", "not_logged_in"]);
    assert.doesNotMatch(
      usage.out.message!,
      /API key\b(?! variable)/,
      "never 'logged in with an API key'",
    );
    assert.equal(usage.out.thread?.reason, "not_logged_in");
    const run = await call(relay, "codex_run", { threadId: t.id, text: "x" });
    assert.equal(run.out.reason, "not_logged_in");
  });
  // A provider that needs no OpenAI login: account_required, saying so.
  const none = { account: null, userId: null, requiresOpenaiAuth: false, workspaceRouting: null };
  await withRelay({ threads: [thread()], account: none }, async (relay) => {
    const usage = await call(relay, "codex_usage", {});
    assert.equal(usage.out.reason, "account_required");
    assert.match(usage.out.message!, /model provider needs no OpenAI login/);
  });
});

Deno.test("codex_usage with a ChatGPT login: the 5-hour and weekly windows, resets as ISO times, a thread's cost", async () => {
  const t = thread();
  const s: Scenario = {
    threads: [t],
    rateLimits: {
      rateLimits: {
        limitId: "codex",
        primary: { usedPercent: 42, windowDurationMins: 300, resetsAt: 1796200000 },
        secondary: { usedPercent: 7, windowDurationMins: 10080, resetsAt: 1796700000 },
        credits: null,
        planType: "plus",
      },
    },
    accountUsage: {
      summary: {},
      threadUsage: {
        threadId: t.id,
        estimatedUsageCreditsMicros: 3_000_000,
        estimatedUsageUsdMicros: 125_000,
        groups: [],
      },
    },
  };
  await withRelay(s, async (relay) => {
    const out = (await call(relay, "codex_usage", { threadId: t.id })).out;
    assert.deepEqual(out.primary, {
      usedPercent: 42,
      windowMinutes: 300,
      resetsAt: new Date(1796200000_000).toISOString(),
    });
    assert.equal(out.secondary?.windowMinutes, 10080);
    assert.equal(out.planType, "plus");
    assert.deepEqual(out.thread, {
      threadId: t.id,
      status: "available",
      estimatedUsd: 0.125,
      estimatedCredits: 3,
    });
  });
});

Deno.test("a run Codex refuses for a spent limit: failed, capacity, retryAfterMs until the window's reset", async () => {
  const resetsAt = Math.floor(Date.now() / 1000) + 3600;
  const t = thread({
    scripts: [[
      {
        notify: {
          method: "account/rateLimits/updated",
          params: {
            rateLimits: {
              primary: { usedPercent: 100, windowDurationMins: 300, resetsAt },
              secondary: { usedPercent: 30, windowDurationMins: 10080, resetsAt: resetsAt + 9e5 },
            },
          },
        },
      },
      {
        end: "failed",
        error: { message: "You've hit your usage limit.", codexErrorInfo: "usageLimitExceeded" },
      },
    ]],
  });
  await withRelay({ threads: [t] }, async (relay) => {
    const out = (await call(relay, "codex_run", { threadId: t.id, text: "go" })).out;
    assert.equal(out.turn?.status, "failed");
    assert.equal(out.failureClass, "capacity");
    assert.equal(out.retryable, true);
    const ms = out.retryAfterMs!;
    assert.ok(ms > 3_500_000 && ms <= 3_600_000, `retryAfterMs ${ms}: the 5-hour window's reset`);
  });
});
