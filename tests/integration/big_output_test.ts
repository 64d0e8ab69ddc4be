/**
 * A notification over the 1 MiB frame bound (issue 46, item 2) through `mod.ts serve` with the
 * fixture, in both modes (the spawn backend's lines, the daemon's WebSocket messages): Codex tells a command that printed 3 MB in one `item/completed` line; the relay skips
 * it unbuffered, keeps the turn host, says what it cut in the run's result, and another run on
 * the same turn host goes on.
 */

import assert from "assert";
import { callTool, type ToolName } from "../../testing/call_tool.ts";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";
import type { Scenario } from "../../fixtures/scenario.ts";

type Relay = Awaited<ReturnType<typeof startRelay>>;

async function call<N extends ToolName>(relay: Relay, name: N, args: Record<string, unknown>) {
  const r = await callTool(relay.client, name, args, { timeout: 60_000 });
  assert.ok(r.structuredContent, `${name} answered with structuredContent`);
  return { out: r.structuredContent, text: (r.content as { text: string }[])[0].text };
}

/** A command item as Codex 0.169 completes it (transcript 09), its output as Codex stores it. */
const command = {
  type: "commandExecution",
  id: "call_sh_big",
  pluginId: null,
  scriptPath: null,
  command: "/bin/bash -lc 'head -c 3000000 /dev/zero | tr \\\\0 x'",
  cwd: "/tmp",
  processId: null,
  source: "agent",
  status: "completed",
  commandActions: [{ type: "unknown", command: "head -c 3000000 /dev/zero | tr \\0 x" }],
  aggregatedOutput: "xxxx",
  exitCode: 0,
  durationMs: 12,
};
const answer = {
  type: "agentMessage",
  id: "msg_after_big",
  text: "DONE-AFTER-BIG",
  phase: "final_answer",
  memoryCitation: null,
};

for (const mode of ["spawn", "daemon"] as const) {
  Deno.test(`${mode}: a 3 MB item/completed frame: the run completes and says what was cut; another run on the same app-server goes on`, () =>
    bigOutput(mode));
}

async function bigOutput(mode: "spawn" | "daemon"): Promise<void> {
  const big = thread({
    scripts: [[{ item: command, toldBytes: 3_000_000 }, { item: answer }, { end: "completed" }]],
  });
  const other = thread({
    scripts: [[{ barrier: "other" }, { item: { ...answer, id: "msg_other", text: "OTHER" } }, {
      end: "completed",
    }]],
  });
  const s: Scenario = { threads: [big, other] };
  const f = await FixtureHome.create(s);
  const relay = await startRelay({
    fixture: f,
    flags: ["--allow-turn-start", "--allow-reply-read", "--app-server", mode],
    protocol: "2026-07-28",
  });
  const { code, left } = await closeAfter(relay, f, async () => {
    const held = await f.barrier("other");
    const otherRun = call(relay, "codex_run", { threadId: other.id, text: "o", waitSeconds: 50 });
    await held.reached();

    const run = await call(relay, "codex_run", { threadId: big.id, text: "big", waitSeconds: 50 });
    assert.equal(run.out.turn?.status, "completed", JSON.stringify(run.out));
    assert.deepEqual(run.out.cutNotifications, [
      {
        method: "item/completed",
        bytes: 3_000_000,
        itemType: "commandExecution",
        itemId: "call_sh_big",
      },
    ]);
    assert.deepEqual(run.out.replies?.map((r) => "text" in r ? r.text : null), ["DONE-AFTER-BIG"]);
    assert.match(run.text, /item\/completed \(commandExecution call_sh_big\) of 3000000 bytes/);

    await held.release();
    const o = await otherRun;
    assert.equal(o.out.turn?.status, "completed", JSON.stringify(o.out));
    assert.equal("cutNotifications" in o.out, false);
    assert.deepEqual(o.out.replies?.map((r) => "text" in r ? r.text : null), ["OTHER"]);
    const hosts = (await f.requests()).filter((q) => q.method === "thread/resume");
    assert.equal(new Set(hosts.map((q) => q.pid)).size, 1, "both runs on one app-server");
  });
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(left, [], "no helper is left in the process table");
}
