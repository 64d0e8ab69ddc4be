/**
 * Issue 31, item 1: a relay turn starts only once the thread's MCP servers
 * are up. Codex starts them when a process loads the thread and does not
 * hold a turn back for them, so codex_run waits for each server's `ready` or
 * `failed` (bounded by its `startup_timeout_sec` and the call's budget) before
 * it queues the message, and names the servers the turn runs without.
 * Through `mod.ts serve` against the fixture app-server, in spawn and daemon
 * mode.
 */

import assert from "assert";
import { agentItem, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";
import type { ConnectedClient } from "../../testing/mcp_client.ts";
import type { FixtureThread, Scenario } from "../../fixtures/scenario.ts";

const MODES = [
  { name: "spawn", flags: [] as string[] },
  { name: "daemon", flags: ["--app-server", "daemon"] },
];

const SERVERS: Scenario["mcpServers"] = {
  slow: { command: "slow-mcp" },
  broken: { command: "broken-mcp", startup_timeout_sec: 20 },
  off: { command: "off-mcp", enabled: false },
};

function doneThread(over: Partial<FixtureThread> = {}): FixtureThread {
  return thread({
    scripts: [[{ item: agentItem("a1", "Done.") }, { end: "completed" }]],
    ...over,
  });
}

async function withRelay(
  scenario: Scenario,
  flags: string[],
  fn: (client: ConnectedClient["client"], f: FixtureHome) => Promise<void>,
): Promise<void> {
  const f = await FixtureHome.create(scenario);
  const relay = await startRelay({
    fixture: f,
    flags: ["--allow-reply-read", "--allow-turn-start", ...flags],
    protocol: "2026-07-28",
  });
  try {
    await fn(relay.client, f);
  } finally {
    const { code } = await relay.close();
    assert.equal(code, 0, "the relay exits 0 on stdin EOF");
    await f.dispose();
  }
}

/** The fixture log's MCP statuses and requests, in the order the fixture saw them. */
async function story(f: FixtureHome): Promise<string[]> {
  return (await f.log()).flatMap((e) =>
    e.event === "mcpStatus"
      ? [`${e.name}:${(e as { status?: string }).status}`]
      : e.dir === "in" && e.msg?.method?.startsWith("thread/queue/")
      ? [e.msg.method]
      : []
  );
}

for (const mode of MODES) {
  Deno.test(`${mode.name}: codex_run queues the message only once a slow MCP server is ready, and names the failed one`, async () => {
    const t = doneThread();
    const scenario: Scenario = {
      threads: [t],
      mcpServers: SERVERS,
      mcpStartup: { slow: { barrier: "mcp-slow" }, broken: { fails: "exit status 1" } },
    };
    await withRelay(scenario, mode.flags, async (client, f) => {
      const slow = await f.barrier("mcp-slow");
      const running = callTool(client, "codex_run", { threadId: t.id, text: "go" }, {
        timeout: 60_000,
      });
      await slow.reached();
      // The relay loaded the thread and waits: nothing is queued while the server starts.
      assert.deepEqual(await story(f), ["slow:starting", "broken:starting", "broken:failed"]);
      await slow.release();
      const result = await running;
      const out = result.structuredContent;
      assert.equal(out.turn?.status, "completed", JSON.stringify(out));
      assert.deepEqual((await story(f)).slice(3, 5), ["slow:ready", "thread/queue/add"]);
      assert.deepEqual(out.mcpServers, [{
        name: "broken",
        status: "failed",
        error: "MCP client for `broken` failed to start: exit status 1",
      }]);
      const line = "The turn runs without the tools of MCP server broken (failed: " +
        "MCP client for `broken` failed to start: exit status 1)";
      assert.deepEqual(out.notes, [line]);
      const text = result.content.map((c) => c.type === "text" ? c.text : "").join("");
      assert.ok(text.includes(line), text);
    });
  });

  Deno.test(`${mode.name}: codex_run with no MCP servers waits for none and names none`, async () => {
    const t = doneThread();
    await withRelay({ threads: [t] }, mode.flags, async (client, f) => {
      const out = (await callTool(client, "codex_run", { threadId: t.id, text: "go" }))
        .structuredContent;
      assert.equal(out.turn?.status, "completed", JSON.stringify(out));
      assert.equal(out.mcpServers, undefined);
      assert.equal(out.notes, undefined);
      assert.deepEqual(await story(f), ["thread/queue/add", "thread/queue/start"]);
    });
  });

  Deno.test(`${mode.name}: a server that does not come up within its startup_timeout_sec does not block the turn`, async () => {
    const scenario: Scenario = {
      threads: [],
      newThreadScripts: [[{ item: agentItem("a1", "Done.") }, { end: "completed" }]],
      mcpServers: { mute: { command: "mute-mcp", startup_timeout_sec: 1 } },
      mcpStartup: { mute: { silent: true } },
    };
    await withRelay(scenario, mode.flags, async (client, f) => {
      const out = (await callTool(client, "codex_run", { cwd: "/workspace", text: "go" }))
        .structuredContent;
      assert.equal(out.turn?.status, "completed", JSON.stringify(out));
      assert.deepEqual(out.mcpServers, [{
        name: "mute",
        status: "starting",
        error: "not ready when the turn started (Codex gives it 1 s)",
      }]);
      assert.deepEqual(await story(f), ["mute:starting", "thread/queue/add", "thread/queue/start"]);
    });
  });
}

Deno.test("daemon: a thread the daemon has loaded already costs no wait (its servers started with that load)", async () => {
  const t = doneThread({ loadedWith: { sandbox: "read-only", approvalPolicy: "on-request" } });
  const scenario: Scenario = {
    threads: [t],
    mcpServers: { mute: { command: "mute-mcp", startup_timeout_sec: 60 } },
    mcpStartup: { mute: { silent: true } },
  };
  await withRelay(scenario, ["--app-server", "daemon"], async (client) => {
    const began = performance.now();
    const out = (await callTool(client, "codex_run", { threadId: t.id, text: "go" }))
      .structuredContent;
    assert.equal(out.turn?.status, "completed", JSON.stringify(out));
    assert.equal(out.mcpServers, undefined);
    assert.ok(performance.now() - began < 10_000, "no wait for the loaded thread's servers");
  });
});

Deno.test("spawn: an MCP server not up at a run's start is not waited for again by the next runs (each a new turn host) until its config entry changes", async () => {
  const script = [{ item: agentItem("a1", "Done.") }, { end: "completed" as const }];
  const mute = { command: "mute-mcp", startup_timeout_sec: 3 };
  const scenario: Scenario = {
    threads: [],
    newThreadScripts: [script, script, script],
    mcpServers: { mute },
    mcpStartup: { mute: { silent: true } },
  };
  await withRelay(scenario, [], async (client, f) => {
    const run = async () => {
      const began = performance.now();
      const out = (await callTool(client, "codex_run", { cwd: "/workspace", text: "go" }))
        .structuredContent;
      assert.equal(out.turn?.status, "completed", JSON.stringify(out));
      assert.deepEqual(out.mcpServers?.map((m) => [m.name, m.status]), [["mute", "starting"]]);
      return { ms: performance.now() - began, error: out.mcpServers![0].error ?? "" };
    };
    const first = await run();
    assert.equal(first.error, "not ready when the turn started (Codex gives it 3 s)");
    assert.ok(first.ms >= 3000, `the first run waited for the server: ${first.ms} ms`);
    const second = await run();
    assert.match(
      second.error,
      /^not waited for: not up at a start \d+ s ago in this relay process \(starting: not ready when the turn started \(Codex gives it 3 s\)\); waited for again 5 min after that or once its config entry changes$/,
    );
    assert.ok(second.ms < 3000, `the second run did not wait: ${second.ms} ms`);
    // The user changes the server's entry: the next run waits for it again.
    await f.write({ ...scenario, mcpServers: { mute: { ...mute, args: ["--fixed"] } } });
    const third = await run();
    assert.equal(third.error, "not ready when the turn started (Codex gives it 3 s)");
    assert.ok(third.ms >= 3000, `the changed server is waited for: ${third.ms} ms`);
  });
});
