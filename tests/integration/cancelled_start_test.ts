/**
 * Issue 39, item 5: a run cancelled while it starts (an interrupt during the
 * MCP-server wait, the client's cancel of the `codex_run` call at its first
 * steps) is listed once by `codex_list_threads`, as `interrupted`, as the
 * design says ("cancelled while starting, included"), and nothing of it is
 * queued. Through `mod.ts serve` against the fixture, in spawn and daemon
 * mode; the fixture holds each step at a barrier the test holds.
 */

import assert from "assert";
import { callTool } from "../../testing/call_tool.ts";
import { agentItem, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";
import type { Fault, Scenario } from "../../fixtures/scenario.ts";

type Client = Awaited<ReturnType<typeof startRelay>>["client"];
type Listed = { threadId: string; clientMessageId: string; state: string };

const MODES = [
  { name: "spawn", flags: [] as string[] },
  { name: "daemon", flags: ["--app-server", "daemon"] },
];

async function runs(client: Client): Promise<Listed[]> {
  const out = (await callTool(client, "codex_list_threads", {})).structuredContent;
  assert.ok(Array.isArray(out.runs), `runs in ${JSON.stringify(out)}`);
  return out.runs as Listed[];
}

/**
 * The looks until the cancelled start has ended (a client's cancel is a
 * notification: the relay may still be unwinding the start when the next
 * call arrives), each look a round trip, never a sleep. Returns the looks.
 */
async function looksUntilEnded(client: Client): Promise<Listed[][]> {
  const looks: Listed[][] = [];
  for (let i = 0; i < 200; i++) {
    const look = await runs(client);
    looks.push(look);
    if (!look.some((r) => r.state === "queued")) return looks;
  }
  throw new Error(`the cancelled run never ended: ${JSON.stringify(looks.at(-1))}`);
}

async function withRelay(
  scenario: Scenario,
  flags: string[],
  fn: (client: Client, f: FixtureHome) => Promise<void>,
): Promise<void> {
  const f = await FixtureHome.create(scenario);
  const relay = await startRelay({
    fixture: f,
    flags: ["--allow-turn-start", "--allow-reply-read", ...flags],
    protocol: "2026-07-28",
  });
  const { code, left } = await closeAfter(relay, f, () => fn(relay.client, f));
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(left, [], "no helper is left in the process table");
}

/** Cancels `call` once the fixture holds its start at the barrier "early"; then the looks until it ended. */
async function cancelAtEarly(
  client: Client,
  f: FixtureHome,
  call: (signal: AbortSignal) => Promise<unknown>,
): Promise<Listed[][]> {
  const early = await f.barrier("early");
  const controller = new AbortController();
  const run = call(controller.signal).then(() => "answered", () => "rejected");
  await early.reached();
  controller.abort(new Error("the user cancelled"));
  assert.equal(await run, "rejected");
  return await looksUntilEnded(client);
}

const queued = async (f: FixtureHome) =>
  (await f.requests()).filter((r) =>
    r.method.startsWith("thread/queue/") || r.method === "turn/start"
  );

const doneThread = () =>
  thread({ scripts: [[{ item: agentItem("a1", "Done.") }, { end: "completed" }]] });

/** Where the client cancels: a step held at a barrier (a fault) or the MCP-server wait. */
const SITES: { name: string; faults: Fault[]; mcp: boolean }[] = [
  {
    name: "the login check (account/read)",
    faults: [{ method: "account/read", once: "early", nth: 1, barrier: "early" }],
    mcp: false,
  },
  {
    name: "the config read (config/read)",
    faults: [{ method: "config/read", once: "early", nth: 1, barrier: "early" }],
    mcp: false,
  },
  { name: "the MCP-server wait", faults: [], mcp: true },
];

for (const mode of MODES) {
  Deno.test(`[${mode.name}] codex_interrupt during the MCP-server wait: codex_run is not_sent, cancelled; the run is listed once, interrupted; nothing is queued`, async () => {
    const t = doneThread();
    const scenario: Scenario = {
      threads: [t],
      mcpServers: { slow: { command: "slow-mcp" } },
      mcpStartup: { slow: { barrier: "mcp-slow" } },
    };
    await withRelay(scenario, mode.flags, async (client, f) => {
      const slow = await f.barrier("mcp-slow");
      const run = callTool(client, "codex_run", { threadId: t.id, text: "go" }, {
        timeout: 60_000,
      });
      await slow.reached();
      const [starting] = await runs(client);
      assert.deepEqual([starting.threadId, starting.state], [t.id, "queued"]);
      const stop =
        (await callTool(client, "codex_interrupt", { threadId: t.id })).structuredContent;
      assert.equal(stop.status, "interrupted", JSON.stringify(stop));
      const out = (await run).structuredContent;
      assert.deepEqual([out.receipt.status, out.reason], ["not_sent", "cancelled"]);
      assert.deepEqual((await runs(client)).map((r) => [r.threadId, r.clientMessageId, r.state]), [
        [t.id, starting.clientMessageId, "interrupted"],
      ]);
      assert.deepEqual(await runs(client), [], "listed by one look only");
      assert.deepEqual(await queued(f), [], "nothing was queued");
    });
  });

  for (const site of SITES) {
    Deno.test(`[${mode.name}] the client's cancel of codex_run at ${site.name}: the run is listed once, interrupted; nothing is queued`, async () => {
      const t = doneThread();
      const scenario: Scenario = {
        threads: [t],
        faults: site.faults,
        ...(site.mcp
          ? {
            mcpServers: { slow: { command: "slow-mcp" } },
            mcpStartup: { slow: { barrier: "early" } },
          }
          : {}),
      };
      await withRelay(scenario, mode.flags, async (client, f) => {
        const looks = await cancelAtEarly(
          client,
          f,
          (signal) =>
            callTool(client, "codex_run", { threadId: t.id, text: "go" }, {
              signal,
              timeout: 60_000,
            }),
        );
        const ended = looks.at(-1)!;
        assert.deepEqual(ended.map((r) => [r.threadId, r.state]), [[t.id, "interrupted"]]);
        for (const look of looks.slice(0, -1)) {
          assert.deepEqual(look.map((r) => [r.clientMessageId, r.state]), [[
            ended[0].clientMessageId,
            "queued",
          ]]);
        }
        assert.deepEqual(await runs(client), [], "listed by one look only");
        assert.deepEqual(await queued(f), [], "nothing was queued");
      });
    });
  }
}

for (const mode of MODES) {
  Deno.test(`[${mode.name}] the client's cancel of an inline codex_review at its config read: the run is listed once, interrupted; no review starts`, async () => {
    const t = doneThread();
    const faults: Fault[] = [{ method: "config/read", once: "early", nth: 1, barrier: "early" }];
    await withRelay({ threads: [t], faults }, mode.flags, async (client, f) => {
      const looks = await cancelAtEarly(
        client,
        f,
        (signal) =>
          callTool(client, "codex_review", { threadId: t.id, target: "uncommitted" }, {
            signal,
            timeout: 60_000,
          }),
      );
      assert.deepEqual(looks.at(-1)!.map((r) => [r.threadId, r.state]), [[t.id, "interrupted"]]);
      assert.deepEqual(await runs(client), [], "listed by one look only");
      const started = (await f.requests()).filter((r) => r.method === "review/start");
      assert.deepEqual(started, [], "no review was started");
    });
  });
}
