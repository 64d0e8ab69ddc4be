import { untilChanged } from "../../testing/deadline.ts";
import assert from "assert";
import { type TurnRig, turnRig } from "../../testing/turn_rig.ts";
import type { TurnRuntime } from "../../src/turn/turn_runtime.ts";
import { DEFAULT_TURN_LIMITS } from "../../src/turn/turn_watchdog.ts";
import { agentItem, FixtureHome, thread } from "../../testing/fixture_home.ts";
import type { Scenario, TurnStep } from "../../fixtures/scenario.ts";

interface Rig extends TurnRig {
  f: FixtureHome;
  threadId: string;
}

async function rig(
  steps: TurnStep[],
  over: Partial<Scenario> = {},
  named: string[] = [],
): Promise<Rig> {
  const t = thread({ scripts: [steps] });
  const f = await FixtureHome.create({ threads: [t], ...over });
  return { ...turnRig(f, { disabledMcpServers: named }), f, threadId: t.id };
}

async function done(r: Rig): Promise<void> {
  await r.turns.shutdown();
  await r.connection.shutdown();
  assert.deepEqual(r.f.alive(), [], "no helper is left in the process table");
  await r.f.dispose();
}

/** Waits (on the runtime's own change events, not on time) until `ready()` holds; bounded. */
function until(runtime: TurnRuntime, ready: () => boolean): Promise<void> {
  return untilChanged(runtime, ready, "The turn runtime reaching the awaited state");
}

function untilRunning(runtime: TurnRuntime): Promise<void> {
  return until(runtime, () => runtime.snapshot().phase !== "queued");
}

async function start(r: Rig): Promise<TurnRuntime> {
  const started = await r.starts.inThread(r.threadId, "go", new AbortController().signal);
  assert.ok(started.runtime, `started: ${started.reason} ${started.message}`);
  return started.runtime;
}

Deno.test("TurnRuntime interrupts a silent turn after the stall budget and reports stalled", async () => {
  const r = await rig([{ barrier: "silent" }, { end: "completed" }]);
  try {
    const silent = await r.f.barrier("silent");
    const runtime = await start(r);
    await untilRunning(runtime);
    await silent.reached();
    r.clock.advance(DEFAULT_TURN_LIMITS.stallMs - 1);
    assert.equal(runtime.ended, false, "not stalled before the budget");
    r.clock.advance(1);
    const run = await runtime.run.settled;
    assert.equal(run.snapshot.phase, "interrupted");
    assert.deepEqual(run.snapshot.failure, { failureClass: "stalled", retryable: true });
    const methods = (await r.f.requests()).map((q) => q.method);
    assert.ok(methods.includes("turn/interrupt"));
    assert.ok(methods.includes("thread/unsubscribe"), "the thread is released");
    assert.equal(r.turns.lives().length, 0);
    assert.equal(r.connection.stats.alive, 0, "the runtime's helper is reaped");
  } finally {
    await done(r);
  }
});

Deno.test("TurnRuntime allows a longer silence while an MCP tool call is in flight", async () => {
  const r = await rig([]);
  r.f.write({
    threads: [thread({
      id: r.threadId,
      scripts: [[
        {
          notify: {
            method: "item/started",
            params: {
              threadId: r.threadId,
              item: { type: "mcpToolCall", id: "mcp_1", status: "inProgress" },
            },
          },
        },
        { barrier: "tool" },
        { end: "completed" },
      ]],
    })],
  });
  try {
    const tool = await r.f.barrier("tool");
    const runtime = await start(r);
    await untilRunning(runtime);
    await tool.reached();
    r.clock.advance(DEFAULT_TURN_LIMITS.stallMs * 2);
    assert.equal(runtime.ended, false, "an in-flight MCP tool call extends the budget");
    r.clock.advance(DEFAULT_TURN_LIMITS.toolCallStallMs);
    const run = await runtime.run.settled;
    assert.equal(run.snapshot.failure?.failureClass, "stalled");
  } finally {
    await done(r);
  }
});

Deno.test("TurnRuntime does not count time waiting on a human toward the stall budget", async () => {
  const r = await rig([
    {
      request: {
        method: "item/commandExecution/requestApproval",
        params: {
          itemId: "c1",
          command: "ls",
          cwd: "/w",
          availableDecisions: ["accept", "decline"],
        },
      },
    },
    { item: agentItem("msg_f", "done") },
    { end: "completed" },
  ]);
  try {
    const runtime = await start(r);
    await until(runtime, () => r.router.pendingFor(runtime).length > 0);
    r.clock.advance(9 * 60_000); // Far past the stall budget, short of the 10-minute deadline.
    assert.equal(runtime.ended, false);
    const [pending] = r.router.pendingFor(runtime);
    assert.equal(
      r.router.answer(pending.token, runtime.id, {
        action: "accept",
        content: { decision: "accept" },
      }),
      "answered",
    );
    const run = await runtime.run.settled;
    assert.equal(run.snapshot.phase, "completed");
    assert.equal(run.snapshot.failure, undefined);
    assert.deepEqual((await r.f.answers()).map((a) => a.result), [{ decision: "accept" }]);
  } finally {
    await done(r);
  }
});

Deno.test("TurnRuntime: the deadline answers cancel to Codex, and the run's notes say so", async () => {
  const r = await rig([
    {
      request: {
        method: "item/commandExecution/requestApproval",
        params: {
          itemId: "c1",
          command: "ls",
          cwd: "/w",
          availableDecisions: ["accept", "cancel"],
        },
      },
    },
    { end: "completed" },
  ]);
  try {
    const runtime = await start(r);
    await until(runtime, () => r.router.pendingFor(runtime).length > 0);
    r.clock.advance(10 * 60_000);
    await runtime.run.settled;
    assert.deepEqual((await r.f.answers()).map((a) => a.result), [{ decision: "cancel" }]);
    assert.match(
      runtime.snapshot().notes.join("\n"),
      /command approval ".*Command: ls.*" was cancelled: nobody answered it within 10 minutes/,
    );
  } finally {
    await done(r);
  }
});

Deno.test("TurnRegistry disables codex-relay MCP servers and named ones when it resumes a thread", async () => {
  const r = await rig([{ end: "completed" }], {
    mcpServers: {
      relay: { command: "deno", args: ["run", "-P", "jsr:@codex-relay/cli", "serve"] },
      other: { command: "node", args: ["server.js"] },
      "quoted name": { command: "codex-relay", args: ["serve"] },
    },
  }, ["docs_search"]);
  try {
    const runtime = await start(r);
    await runtime.run.settled;
    const resume = (await r.f.requests()).find((q) => q.method === "thread/resume");
    assert.deepEqual((resume?.params as { config: unknown }).config, {
      "mcp_servers.relay.enabled": false,
      "mcp_servers.docs_search.enabled": false,
    });
  } finally {
    await done(r);
  }
});

Deno.test("TurnRegistry.shutdown() declines pending requests, interrupts the turn and releases the thread", async () => {
  const r = await rig([
    {
      request: {
        method: "item/commandExecution/requestApproval",
        params: {
          itemId: "c1",
          command: "ls",
          cwd: "/w",
          availableDecisions: ["accept", "decline"],
        },
      },
    },
    { barrier: "after" },
    { end: "completed" },
  ]);
  await r.f.barrier("after");
  const runtime = await start(r);
  await until(runtime, () => r.router.pendingFor(runtime).length > 0);
  await r.turns.shutdown();
  assert.deepEqual((await r.f.answers()).map((a) => a.result), [{ decision: "decline" }]);
  const methods = (await r.f.requests()).map((q) => q.method);
  assert.ok(methods.includes("turn/interrupt"));
  assert.ok(methods.includes("thread/unsubscribe"));
  await done(r);
});
