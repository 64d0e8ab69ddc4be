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
    "e2e codex_run refused for a spent limit: failed, capacity, retryAfterMs until the 5-hour window's reset",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const relay = await w.relay(FLAGS);
      // The mock answers 429 usage_limit_reached with a spent primary window resetting in 1 h;
      // Codex tells account/rateLimits/updated, then fails the turn (usageLimitExceeded).
      const out = (await callTool(relay.client, "codex_run", {
        cwd: w.home.workspace,
        text: "go USAGE_LIMIT",
      }, LONG)).structuredContent;
      assert.equal(out.turn?.status, "failed", JSON.stringify(out));
      assert.equal(out.failureClass, "capacity");
      assert.equal(out.retryable, true);
      const ms = out.retryAfterMs!;
      assert.ok(ms > 3_500_000 && ms <= 3_600_000, `retryAfterMs ${ms}`);
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

Deno.test({
  name:
    "e2e codex_fork of a thread another process holds: a new thread with its history, the original untouched",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const other = await w.driver();
      const held = await other.startThread({ cwd: w.home.workspace });
      await other.runTurn(held.id, "first question");
      const relay = await w.relay(FLAGS);
      const r = await callTool(
        relay.client,
        "codex_fork",
        { threadId: held.id, name: "try b" },
        LONG,
      );
      const out = r.structuredContent;
      assert.equal(out.status, "forked", JSON.stringify(out));
      assert.notEqual(out.newThreadId, held.id);
      assert.equal(out.name, "try b");
      const next = (await callTool(relay.client, "codex_run", {
        threadId: out.newThreadId,
        text: "second question",
      }, LONG)).structuredContent;
      assert.equal(next.turn?.status, "completed", JSON.stringify(next));
      // The fork's model request carried the original's history.
      const last = w.mock.requests.at(-1)!;
      assert.match(JSON.stringify(last.body), /first question/);
      // The original is still the other process's: a run there is held_elsewhere.
      const there =
        (await callTool(relay.client, "codex_run", { threadId: held.id, text: "x" }, LONG))
          .structuredContent;
      assert.equal(there.reason, "held_elsewhere", JSON.stringify(there));
    }),
});

Deno.test({
  name: "e2e codex_compact: a compaction turn completes; interrupted midway it ends interrupted",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const relay = await w.relay(FLAGS);
      const cwd = w.home.workspace;
      const run = (await callTool(relay.client, "codex_run", { cwd, text: "some work" }, LONG))
        .structuredContent;
      const done = (await callTool(relay.client, "codex_compact", { threadId: run.threadId }, LONG))
        .structuredContent;
      assert.equal(done.turn?.status, "completed", JSON.stringify(done));
      // Codex tells three usages for the one compaction request (the mock's: in 10, out 5).
      const u = done.usage!;
      assert.deepEqual(
        [u.inputTokens, u.outputTokens, u.totalTokens],
        [10, 5, 15],
        JSON.stringify(u),
      );
      assert.equal(u.threadTotal.totalTokens, run.usage!.totalTokens + 15);
      assert.ok(w.mock.requests.some((q) => q.kind !== "not_found" && q.seq > 1));
      const after = (await callTool(relay.client, "codex_run", {
        threadId: run.threadId,
        text: "more work",
      }, LONG)).structuredContent;
      assert.equal(after.turn?.status, "completed", "the thread goes on after its compaction");
      // Interrupted midway: the compaction's model request is held, then the run interrupted.
      const slow = (await callTool(relay.client, "codex_run", {
        cwd,
        text: "work COMPACT_SLOW:cmp",
      }, LONG)).structuredContent;
      const started = (await callTool(relay.client, "codex_compact", {
        threadId: slow.threadId,
        waitSeconds: 2,
      }, LONG)).structuredContent;
      assert.equal(started.turn?.status, "running", JSON.stringify(started));
      await w.mock.held("cmp");
      const busy =
        (await callTool(relay.client, "codex_compact", { threadId: slow.threadId }, LONG))
          .structuredContent;
      assert.equal(busy.reason, "turn_running", "one run per thread");
      const stopped = (await callTool(relay.client, "codex_interrupt", {
        threadId: slow.threadId,
      }, LONG)).structuredContent;
      assert.equal(stopped.status, "interrupted", JSON.stringify(stopped));
      w.mock.release("cmp");
    }),
});

Deno.test({
  name:
    "e2e codex_usage and codex_run agree with an unreadable auth.json and the OpenAI provider: not_logged_in",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      // The OpenAI provider (the mock's removed) and an auth.json that is not JSON: Codex answers
      // account/read {account: null, requiresOpenaiAuth: true} and refuses the limits (captures 46).
      const config = `${w.home.codexHome}/config.toml`;
      const toml = await Deno.readTextFile(config);
      await Deno.writeTextFile(config, toml.replace(/^model_provider = .*$/m, ""));
      await Deno.writeTextFile(`${w.home.codexHome}/auth.json`, "{not json");
      const relay = await w.relay(FLAGS);
      const usage = (await callTool(relay.client, "codex_usage", {}, LONG)).structuredContent;
      assert.deepEqual(
        [usage.status, usage.reason],
        ["unavailable", "not_logged_in"],
        usage.message,
      );
      const run = (await callTool(relay.client, "codex_run", {
        cwd: w.home.workspace,
        text: "hi",
      }, LONG)).structuredContent;
      assert.equal(run.reason, "not_logged_in", JSON.stringify(run));
      assert.equal(w.mock.requests.length, 0, "no model request");
    }),
});
