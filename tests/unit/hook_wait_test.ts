/**
 * Protects: every exit of `hook-wait` (src/cli/hook_wait.ts, hook_input.ts) and the
 * pushed text's bounds (src/host/push_text.ts): final already, followed meanwhile,
 * interrupted, the session gone, timeout, Codex gone, a thread it cannot read, and the wake.
 */
import assert from "assert";
import { followForHook, type HookDeps, hookWait, hookWaitArgs } from "../../src/cli/hook_wait.ts";
import { UsageError } from "../../src/core/usage_error.ts";
import { followedInTranscript, hookPlan, type HookRef } from "../../src/cli/hook_input.ts";
import { PUSH_ANSWER_LINES, PUSH_TEXT_MAX, pushText } from "../../src/host/push_text.ts";
import type { WaitMessageResult } from "../../src/reply/schemas.ts";
import { USAGE_10_5 } from "../../testing/run_usage.ts";

const T = "01a22a5c-6698-7df3-813e-7166a248c477";
const REF: HookRef = { threadId: T, clientMessageId: "m-1" };

function runResponse(turn: string, receipt = "queued"): string {
  return JSON.stringify({
    receipt: { status: receipt, ...REF },
    threadId: T,
    turn: { id: "turn-1", status: turn },
  });
}

const hook = (response: string, tool = "codex_run") => ({
  session_id: "s",
  transcript_path: "/nowhere/t.jsonl",
  hook_event_name: "PostToolUse",
  tool_name: `mcp__codex-relay__${tool}`,
  tool_input: {},
  tool_response: response,
  tool_use_id: "toolu_1",
});

function ended(status: string, extra: Partial<WaitMessageResult> = {}): WaitMessageResult {
  return {
    status: "observed",
    ...REF,
    turn: { id: "turn-1", status: status as "completed" },
    replies: [{ itemId: "i1", text: "All 3 tests pass now.", truncated: false }],
    nextCursor: null,
    searchCursor: null,
    timedOut: false,
    ...extra,
  };
}

const running: WaitMessageResult = { ...ended("running"), replies: [], timedOut: true };

/** Deps whose waits return `results` in turn, each taking the time asked for. */
function deps(results: (WaitMessageResult | Error)[], more: Partial<HookDeps> = {}) {
  let now = 0;
  const waits: number[] = [];
  const d: HookDeps = {
    clock: { now: () => now },
    wait: (_ref, ms) => {
      waits.push(ms);
      const next = results.shift() ?? running;
      if (next instanceof Error) return Promise.reject(next);
      now += next.timedOut ? ms : 1;
      return Promise.resolve(next);
    },
    sessionAlive: () => true,
    followed: () => Promise.resolve(false),
    ...more,
  };
  return { d, waits };
}

const waitPlan = hookPlan(hook(runResponse("running")));

Deno.test("hook-wait: a run's result that was final already: exit 0 at once, nothing read", async () => {
  for (const status of ["completed", "failed", "interrupted"]) {
    const { d, waits } = deps([]);
    const out = await followForHook(hookPlan(hook(runResponse(status))), 60_000, d);
    assert.deepEqual(out, { exit: 0, why: "final" });
    assert.equal(waits.length, 0);
  }
  const notSent = hookPlan(hook(runResponse("running", "not_sent")));
  assert.deepEqual(notSent, { kind: "skip", why: "not_sent" });
  assert.deepEqual(hookPlan({ tool_response: "not json" }), { kind: "skip", why: "not_a_result" });
});

Deno.test("hook-wait: queue and steer receipts are waited on; the structured string or object is read", () => {
  const queued = JSON.stringify({ status: "queued", ...REF });
  assert.equal(hookPlan(hook(queued, "codex_queue_message")).kind, "wait");
  const steered = JSON.stringify({ status: "steered", ...REF, turnId: "turn-1" });
  assert.equal(hookPlan(hook(steered, "codex_steer")).kind, "wait");
  const notRunning = JSON.stringify({ status: "not_running", threadId: T });
  assert.equal(hookPlan(hook(notRunning, "codex_steer")).kind, "skip");
  const asObject = { structuredContent: JSON.parse(runResponse("running")) };
  assert.deepEqual(hookPlan({ tool_response: asObject }), { kind: "wait", ref: REF });
});

Deno.test("hook-wait: the run ends: exit 2 with the status, the answer's first lines and the next call", async () => {
  const { d, waits } = deps([running, ended("completed")]);
  const out = await followForHook(waitPlan, 30 * 60_000, d);
  assert.equal(out.exit, 2);
  const text = (out as { text: string }).text;
  assert.match(text, /^Codex run ended: completed/);
  assert.match(text, /All 3 tests pass now\./);
  assert.match(text, /Next: codex_read_reply/);
  // Each wait is one bounded codex_wait_reply-sized wait.
  assert.deepEqual(waits, [55_000, 55_000]);
});

Deno.test("hook-wait: the agent followed the run itself meanwhile: exit 0, nothing said", async () => {
  const { d } = deps([ended("completed")], { followed: () => Promise.resolve(true) });
  assert.deepEqual(await followForHook(waitPlan, 60_000, d), { exit: 0, why: "followed" });
});

Deno.test("hook-wait: the run was interrupted: exit 0", async () => {
  const { d } = deps([running, ended("interrupted")]);
  assert.deepEqual(await followForHook(waitPlan, 60 * 60_000, d), { exit: 0, why: "interrupted" });
});

Deno.test("hook-wait: the session ended while it waited: exit 0 before the next wait", async () => {
  let alive = true;
  const { d, waits } = deps([running, running], { sessionAlive: () => alive });
  const wait = d.wait;
  d.wait = (ref, ms) => {
    alive = waits.length < 1;
    return wait(ref, ms);
  };
  assert.deepEqual(await followForHook(waitPlan, 60 * 60_000, d), { exit: 0, why: "ended" });
  assert.equal(waits.length, 2);
});

Deno.test("hook-wait: a wait cut short by the session's end (cancelled, as it stands) is exit 0, not a failure", async () => {
  let alive = true;
  const cancelled: WaitMessageResult = {
    ...ended("completed"),
    status: "unavailable",
    reason: "cancelled",
    turn: null,
    replies: [],
  };
  const { d } = deps([cancelled], { sessionAlive: () => alive });
  const wait = d.wait;
  d.wait = (ref, ms) => {
    alive = false;
    return wait(ref, ms);
  };
  assert.deepEqual(await followForHook(waitPlan, 60 * 60_000, d), { exit: 0, why: "ended" });
});

Deno.test("hook-wait: the bound: still running after it, exit 2 saying so", async () => {
  const { d, waits } = deps([]);
  const out = await followForHook(waitPlan, 2 * 60_000, d);
  assert.equal(out.exit, 2);
  assert.match((out as { text: string }).text, /still running after 2 min/);
  assert.deepEqual(waits, [55_000, 55_000, 10_000]);
});

Deno.test("hook-wait: Codex gone or a thread it cannot read: exit 1 (wakes no one), the reason said", async () => {
  const gone = deps([new Error("spawn codex: not found")]);
  const out = await followForHook(waitPlan, 60_000, gone.d);
  assert.deepEqual(out, {
    exit: 1,
    text: "codex-relay hook-wait: cannot follow the run: spawn codex: not found",
  });
  const unreadable: WaitMessageResult = {
    ...ended("completed"),
    status: "unavailable",
    reason: "thread_not_found",
    turn: null,
    replies: [],
  };
  const read = deps([unreadable]);
  const out2 = await followForHook(waitPlan, 60_000, read.d);
  assert.equal(out2.exit, 1);
  assert.match((out2 as { text: string }).text, /unavailable \(thread_not_found\)/);
});

Deno.test("hook-wait: Codex gone, through the command: exit 1 with the reason", async () => {
  const input = new Blob([JSON.stringify(hook(runResponse("running")))]).stream();
  const out = await hookWait(
    ["--codex", "/nonexistent/bin/codex", "--timeout-minutes", "1"],
    input,
  );
  assert.equal(out.code, 1);
  assert.match(out.text ?? "", /^codex-relay hook-wait: cannot follow the run: unavailable/);
});

Deno.test("hook-wait: a final result is silent through the command, and nothing is spawned", async () => {
  const input = new Blob([JSON.stringify(hook(runResponse("completed")))]).stream();
  assert.deepEqual(await hookWait(["--codex", "/nonexistent/bin/codex"], input), { code: 0 });
});

Deno.test("transcript: a later result that shows the end, or a wait still open on the message, is followed", () => {
  const line = (o: unknown) => JSON.stringify(o);
  const use = (id: string, name: string, input: unknown) =>
    line({
      type: "assistant",
      message: { content: [{ type: "tool_use", id, name: `mcp__r__${name}`, input }] },
    });
  const result = (id: string, body: unknown) =>
    line({
      type: "user",
      message: {
        content: [{
          type: "tool_result",
          tool_use_id: id,
          content: [{ type: "text", text: JSON.stringify(body) }],
        }],
      },
    });
  const runOpen = [use("a", "codex_run", {}), result("a", JSON.parse(runResponse("running")))];
  assert.equal(followedInTranscript(runOpen.join("\n"), REF), false);
  const waitOpen = [...runOpen, use("b", "codex_wait_reply", REF)];
  assert.equal(followedInTranscript(waitOpen.join("\n"), REF), true);
  const timedOut = [...waitOpen, result("b", { ...running, timedOut: true })];
  assert.equal(followedInTranscript(timedOut.join("\n"), REF), false);
  const many = [
    ...runOpen,
    use("c", "codex_wait_reply", { messages: [REF] }),
    result("c", { messages: [ended("completed")] }),
  ];
  assert.equal(followedInTranscript(many.join("\n"), REF), true);
  const other = [...runOpen, result("d", { ...ended("completed"), clientMessageId: "m-2" })];
  assert.equal(followedInTranscript(other.join("\n"), REF), false);
});

Deno.test("pushed text: bounded lines and size, moderated answers held back, never their text", () => {
  const long = Array.from({ length: 40 }, (_, i) => `line ${i} ${"x".repeat(200)}`).join("\n");
  const text = pushText({
    result: ended("completed", {
      replies: [
        { itemId: "i1", text: long, truncated: false },
        { itemId: "i2", moderated: true },
      ],
      usage: USAGE_10_5,
    }),
    worktree: "/w/tree",
  });
  assert.ok(text.length <= PUSH_TEXT_MAX);
  assert.ok(!text.includes(`line ${PUSH_ANSWER_LINES} `));
  const short = pushText({
    result: ended("completed", {
      replies: [{ itemId: "i2", moderated: true }],
      changedFiles: [{ path: "a.ts", kind: "update" }],
    }),
    worktree: "/w/tree",
  });
  assert.match(short, /1 final answer\(s\) moderated by Codex: withheld/);
  assert.match(short, /Worktree: \/w\/tree/);
  assert.match(short, /Changed files \(1\): update a\.ts/);
  assert.doesNotMatch(short, /Final answer/);
});

Deno.test("hook-wait's command line: a whole number of minutes from 1 to 1440 (30 by default), Codex reached as serve reaches it", () => {
  const none = hookWaitArgs([]);
  assert.equal(none.minutes, 30);
  assert.deepEqual(none.flags.appServer, { kind: "spawn" });
  assert.equal(none.flags.logLevel, "error", "quiet unless asked: its stderr wakes the agent");
  assert.equal(none.flags.codex, undefined);
  assert.equal(hookWaitArgs(["--timeout-minutes", "1"]).minutes, 1);
  assert.equal(hookWaitArgs(["--timeout-minutes", "1440"]).minutes, 1440);
  for (const bad of ["0", "1441", "2.5", "x", ""]) {
    assert.throws(
      () => hookWaitArgs(["--timeout-minutes", bad]),
      (e) =>
        e instanceof UsageError &&
        e.message === "--timeout-minutes takes a whole number from 1 to 1440",
      bad,
    );
  }
  assert.throws(
    () => hookWaitArgs(["now"]),
    (e) => e instanceof UsageError && e.message === "Unexpected argument 'now'",
  );
  const all = hookWaitArgs([
    "--app-server",
    "unix:///run/codex.sock",
    "--codex",
    "/c/codex",
    "--log-level",
    "debug",
  ]);
  assert.deepEqual(all.flags.appServer, { kind: "unix", path: "/run/codex.sock" });
  assert.equal(all.flags.codex, "/c/codex");
  assert.equal(all.flags.logLevel, "debug");
  assert.deepEqual(hookWaitArgs(["--app-server", "daemon"]).flags.appServer, { kind: "daemon" });
});

Deno.test("hook-wait: a wait that fails because the session ended is exit 0; a failure's reason said as it is", async () => {
  let alive = true;
  const { d } = deps([new Error("cancelled")], { sessionAlive: () => alive });
  const wait = d.wait;
  d.wait = (ref, ms) => {
    alive = false;
    return wait(ref, ms);
  };
  assert.deepEqual(await followForHook(waitPlan, 60_000, d), { exit: 0, why: "ended" });
  const thrown = deps([]);
  thrown.d.wait = () => Promise.reject("a string");
  assert.deepEqual(await followForHook(waitPlan, 60_000, thrown.d), {
    exit: 1,
    text: "codex-relay hook-wait: cannot follow the run: a string",
  });
  const bare = deps([{ ...ended("completed"), status: "unavailable", turn: null, replies: [] }]);
  assert.deepEqual(await followForHook(waitPlan, 60_000, bare.d), {
    exit: 1,
    text: "codex-relay hook-wait: cannot follow the run: unavailable",
  });
  const noTurn = deps([{ ...ended("completed"), turn: null }]);
  assert.deepEqual(await followForHook(waitPlan, 60_000, noTurn.d), {
    exit: 1,
    text: "codex-relay hook-wait: cannot follow the run: observed",
  });
});

Deno.test("hook-wait: the pushed text names the run's worktree; the bound in whole minutes", async () => {
  const inTree = hookPlan(
    hook(JSON.stringify({ ...JSON.parse(runResponse("running")), worktree: { path: "/w/t" } })),
  );
  const { d } = deps([ended("completed")]);
  const out = await followForHook(inTree, 60_000, d);
  assert.match((out as { text: string }).text, /\nWorktree: \/w\/t\n/);
  const plain = await followForHook(waitPlan, 60_000, deps([ended("completed")]).d);
  assert.doesNotMatch((plain as { text: string }).text, /Worktree/);
  const odd = await followForHook(waitPlan, 90_000 + 1, deps([]).d);
  assert.match((odd as { text: string }).text, /still running after 2 min/);
  const zero = deps([]);
  assert.equal((await followForHook(waitPlan, 0, zero.d)).exit, 2);
  assert.equal(zero.waits.length, 0, "no time left: no wait");
});

Deno.test("hook-wait: a session gone before the first wait: exit 0, nothing read; a result that is not the turn's observed end is not pushed", async () => {
  const gone = deps([], { sessionAlive: () => false });
  assert.deepEqual(await followForHook(waitPlan, 60_000, gone.d), { exit: 0, why: "ended" });
  assert.equal(gone.waits.length, 0);
  const queued = deps([{ ...ended("completed"), status: "queued" }]);
  assert.deepEqual(await followForHook(waitPlan, 60_000, queued.d), {
    exit: 1,
    text: "codex-relay hook-wait: cannot follow the run: queued",
  });
});

Deno.test("hook-wait's command line: a bad --app-server is a usage error naming the flag", () => {
  assert.throws(
    () => hookWaitArgs(["--app-server", "bogus"]),
    (e) => e instanceof UsageError && /^--app-server /.test(e.message),
  );
});
