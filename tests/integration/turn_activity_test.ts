/**
 * Issue 38, item 7: a running turn says the latest thing Codex reported, in
 * progress and in the running result (`activity`), one line: what kind of work
 * it started (never the command or its output), and a model request that
 * failed, so a turn that cannot reach the model says so instead of staying
 * `running` in silence. The fixture tells the failures as Codex 0.169 and
 * 0.171 did (`STREAM_ERRORS`, docs/codex-protocol.md).
 */
import assert from "assert";
import {
  agentItem,
  FixtureHome,
  HIGH_DEMAND_ERROR,
  STREAM_ERRORS,
  thread,
} from "../../testing/fixture_home.ts";
import type { Scenario } from "../../fixtures/scenario.ts";
import { startRelay } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";

type Client = Awaited<ReturnType<typeof startRelay>>["client"];

async function withRelay(s: Scenario, fn: (client: Client, f: FixtureHome) => Promise<void>) {
  const f = await FixtureHome.create(s);
  const relay = await startRelay({
    fixture: f,
    flags: ["--allow-turn-start"],
    protocol: "2026-07-28",
  });
  try {
    await fn(relay.client, f);
  } finally {
    const { code } = await relay.close();
    assert.equal(code, 0, "the relay exits 0 on stdin EOF");
    assert.deepEqual(f.alive(), [], "no helper is left");
    await f.dispose();
  }
}

const NO_NETWORK =
  "Codex's model request failed and is retried: Reconnecting... waiting for network (Connection failed: error sending request)";

Deno.test("a turn that cannot reach the model says so: in progress, and in the running results of codex_run and codex_wait_reply", async () => {
  const t = thread({ scripts: [[STREAM_ERRORS.noNetwork, { barrier: "offline" }]] });
  await withRelay({ threads: [t] }, async (client, f) => {
    const offline = await f.barrier("offline");
    const progress: string[] = [];
    const run = await callTool(
      client,
      "codex_run",
      { threadId: t.id, text: "go", waitSeconds: 1 },
      {
        timeout: 60_000,
        onprogress: (p) => void progress.push(String(p.message)),
      },
    );
    await offline.reached();
    const out = run.structuredContent;
    assert.equal(out.turn?.status, "running");
    assert.equal(out.activity, NO_NETWORK);
    assert.ok(progress.includes(NO_NETWORK), `progress: ${progress.join(" | ")}`);
    const text = (run.content as { text: string }[])[0].text;
    assert.ok(text.includes(`Latest from Codex: ${NO_NETWORK}`), text);

    const wait = await callTool(client, "codex_wait_reply", {
      threadId: t.id,
      clientMessageId: out.receipt.clientMessageId,
      timeoutSeconds: 1,
    }, { timeout: 60_000 });
    assert.equal(wait.structuredContent.timedOut, true);
    assert.equal(wait.structuredContent.activity, NO_NETWORK);
    await offline.release();
  });
});

Deno.test("a model request retried, then failed: progress says each, the result says how the turn failed and no activity", async () => {
  const t = thread({
    scripts: [[
      STREAM_ERRORS.highDemandRetry,
      STREAM_ERRORS.highDemandFailed,
      { end: "failed", error: HIGH_DEMAND_ERROR },
    ]],
  });
  await withRelay({ threads: [t] }, async (client) => {
    const progress: string[] = [];
    const run = await callTool(client, "codex_run", { threadId: t.id, text: "go" }, {
      timeout: 60_000,
      onprogress: (p) => void progress.push(String(p.message)),
    });
    const out = run.structuredContent;
    assert.equal(out.turn?.status, "failed");
    assert.equal(out.activity, undefined, "an ended turn has no activity");
    assert.equal(out.failureClass, "internal");
    const said = progress.join("\n");
    assert.match(
      said,
      /Codex's model request failed and is retried: Reconnecting\.\.\. 1\/2 \(We’re currently experiencing high demand/,
    );
    assert.match(
      said,
      /Codex's model request failed: We’re currently experiencing high demand/,
    );
  });
});

Deno.test("the running result says the kind of work Codex started last, never its command or output", async () => {
  const t = thread({
    scripts: [[
      { item: agentItem("c0", "SECRET-COMMENTARY", "commentary") },
      {
        item: {
          type: "commandExecution",
          id: "c1",
          command: "cat /etc/SECRET-CMD",
          aggregatedOutput: "SECRET-OUT",
          status: "inProgress",
        },
      },
      { barrier: "busy" },
    ]],
  });
  await withRelay({ threads: [t] }, async (client, f) => {
    const busy = await f.barrier("busy");
    const run = await callTool(
      client,
      "codex_run",
      { threadId: t.id, text: "go", waitSeconds: 1 },
      {
        timeout: 60_000,
      },
    );
    await busy.reached();
    assert.equal(run.structuredContent.activity, "Codex is running a command");
    assert.doesNotMatch(JSON.stringify(run), /SECRET/);
    await busy.release();
  });
});
