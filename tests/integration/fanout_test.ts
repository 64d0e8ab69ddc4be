/**
 * Fan-out through the real entry point (`mod.ts serve`, SDK client): as many
 * turns as the relay runs at once all complete while the other tools answer;
 * one more `codex_run` is `busy` at once with how many run. In spawn mode the
 * turns share one private app-server (the turn host), reaped after the last
 * turn; losing it mid-turn fails those runs honestly and the next run starts
 * a new one. In daemon mode the same bound is the daemon backend's own.
 */

import assert from "assert";
import { callTool } from "../../testing/call_tool.ts";
import { type Barrier, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";
import { within } from "../../testing/deadline.ts";
import type { ConnectedClient } from "../../testing/mcp_client.ts";

const FLAGS = ["--allow-turn-start", "--allow-reply-read"];

/** A call made while the turns run answers within this (it waited for nothing). */
const AT_ONCE_MS = 5_000;

async function run(client: ConnectedClient["client"], threadId: string) {
  const args = { threadId, text: "fan out", waitSeconds: 55 };
  return (await callTool(client, "codex_run", args, { timeout: 90_000 })).structuredContent;
}

/** The pids of the fixture processes that resumed a thread (ran a turn). */
async function turnPids(f: FixtureHome): Promise<Set<number>> {
  return new Set(
    (await f.requests()).filter((r) => r.method === "thread/resume").map((r) => r.pid),
  );
}

/** Resolves once the fixture process `pid` logged that its stdin closed (it was reaped). */
async function reaped(f: FixtureHome, pid: number): Promise<void> {
  await within(
    (async () => {
      // The fixture's log is the only signal of a reap from outside the relay.
      while (!(await f.log()).some((e) => e.pid === pid && e.event === "eof")) {
        await new Promise((r) => setTimeout(r, 20));
      }
    })(),
    `fixture process ${pid} reaped`,
  );
}

/**
 * `n` turns waiting at barriers, started at once by `codex_run`; while they
 * run a list and a queue call answer, and one more run is busy at once.
 */
async function fanOut(mode: "spawn" | "daemon", n: number): Promise<void> {
  const threads = Array.from(
    { length: n },
    (_, i) => thread({ scripts: [[{ barrier: `turn-${i}` }, { end: "completed" }]] }),
  );
  const extra = thread();
  const f = await FixtureHome.create({ threads: [...threads, extra] });
  const barriers: Barrier[] = await Promise.all(threads.map((_, i) => f.barrier(`turn-${i}`)));
  const flags = mode === "daemon" ? [...FLAGS, "--app-server", "daemon"] : FLAGS;
  const relay = await startRelay({ fixture: f, flags, protocol: "2026-07-28" });
  let hostPid = 0;
  const { code, left } = await closeAfter(relay, f, async () => {
    const runs = threads.map((t) => run(relay.client, t.id));
    for (const b of barriers) await b.reached();
    const pids = await turnPids(f);
    assert.equal(pids.size, 1, `one app-server process runs all ${n} turns`);
    hostPid = [...pids][0];

    const listed = (await within(
      callTool(relay.client, "codex_list_threads", {}),
      `codex_list_threads while ${n} turns run`,
      AT_ONCE_MS,
    )).structuredContent;
    assert.equal(listed.status, "ok", JSON.stringify(listed));
    const queued = (await within(
      callTool(relay.client, "codex_queue_message", { threadId: extra.id, text: "later" }),
      `codex_queue_message while ${n} turns run`,
      AT_ONCE_MS,
    )).structuredContent;
    assert.equal(queued.status, "queued", JSON.stringify(queued));

    const busy = await within(run(relay.client, extra.id), "the extra codex_run", AT_ONCE_MS);
    assert.equal(busy.reason, "busy", JSON.stringify(busy));
    assert.equal(busy.receipt.status, "not_sent");
    const text = JSON.stringify(busy);
    assert.ok(
      text.includes(`${n} turns are running, the most this relay runs at once in ${mode} mode`),
      text,
    );
    assert.ok(!/helper/i.test(text), `no word of helpers: ${text}`);

    for (const b of barriers) await b.release();
    for (const out of await Promise.all(runs)) {
      assert.equal(out.turn?.status, "completed", JSON.stringify(out));
    }
    if (mode === "spawn") await reaped(f, hostPid);
  });
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(left, [], "no process is left");
}

Deno.test("spawn mode: 8 codex_run at once all complete on one turn host, list and queue answer meanwhile, a 9th is busy at once; the turn host is reaped after the last turn", async () => {
  await fanOut("spawn", 8);
});

Deno.test("daemon mode: 16 codex_run at once all complete, list and queue answer meanwhile, a 17th is busy at once", async () => {
  await fanOut("daemon", 16);
});

Deno.test("spawn mode: losing the turn host mid-turn fails every run on it honestly; the next codex_run starts a new one", async () => {
  const a = thread({ scripts: [[{ barrier: "a" }, { end: "completed" }]] });
  const b = thread({ scripts: [[{ barrier: "b" }, { end: "completed" }]] });
  const c = thread();
  const f = await FixtureHome.create({ threads: [a, b, c] });
  const [ba, bb] = [await f.barrier("a"), await f.barrier("b")];
  const relay = await startRelay({ fixture: f, flags: FLAGS, protocol: "2026-07-28" });
  const { code, left } = await closeAfter(relay, f, async () => {
    const runs = [run(relay.client, a.id), run(relay.client, b.id)];
    await ba.reached();
    await bb.reached();
    const [host] = await turnPids(f);
    Deno.kill(host, "SIGKILL");
    for (const out of await within(Promise.all(runs), "both runs answering after the loss")) {
      const turn = out.turn;
      assert.equal(turn?.status, "failed", JSON.stringify(out));
      assert.match(JSON.stringify(out), /The connection to the app-server ended during the turn/);
    }
    const next = await run(relay.client, c.id);
    assert.equal(next.turn?.status, "completed", JSON.stringify(next));
    const pids = await turnPids(f);
    assert.equal(pids.size, 2, "the next run started a new turn host");
  });
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(left, [], "no process is left");
});
