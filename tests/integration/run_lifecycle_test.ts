/**
 * A run's life through `mod.ts serve` with the fixture (issue 29): a run
 * exists from its first step, so an interrupt during `account/read`, the
 * thread's cwd check (`thread/read`) or `config/read` cancels it with nothing
 * queued; a thread takes one run of this relay at a time, decided at once
 * (three concurrent `codex_run`: one run, two `turn_running`); a run whose
 * turn host is lost settles every wait on it at once with its known end.
 */

import assert from "assert";
import { callTool, type ToolName } from "../../testing/call_tool.ts";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";
import { within } from "../../testing/deadline.ts";
import type { Scenario } from "../../fixtures/scenario.ts";

type Structured = Record<string, unknown>;
type Relay = Awaited<ReturnType<typeof startRelay>>;

const FLAGS = ["--allow-turn-start", "--allow-reply-read"];

async function call<N extends ToolName>(relay: Relay, name: N, args: Structured) {
  const r = await callTool(relay.client, name, args, { timeout: 60_000 });
  assert.ok(r.structuredContent, `${name} answered with structuredContent`);
  return {
    out: r.structuredContent,
    text: (r.content as { text: string }[])[0].text,
  };
}

async function sent(f: FixtureHome, method: string): Promise<number> {
  return (await f.requests()).filter((r) => r.method === method).length;
}

async function withRelay(
  mode: "spawn" | "daemon",
  s: Scenario,
  fn: (relay: Relay, f: FixtureHome) => Promise<void>,
): Promise<void> {
  const f = await FixtureHome.create(s);
  const relay = await startRelay({
    fixture: f,
    flags: [...FLAGS, "--app-server", mode],
    protocol: "2026-07-28",
  });
  const { code, left } = await closeAfter(relay, f, () => fn(relay, f));
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(left, [], "no helper is left in the process table");
}

for (const mode of ["spawn", "daemon"] as const) {
  for (const step of ["account/read", "thread/read", "config/read"]) {
    Deno.test(`[${mode}] codex_interrupt while codex_run is at ${step} cancels the run: not_sent, nothing queued or started`, async () => {
      const t = thread({ scripts: [[{ end: "completed" }]] });
      const s: Scenario = { threads: [t], faults: [{ method: step, barrier: "step" }] };
      await withRelay(mode, s, async (relay, f) => {
        const hold = await f.barrier("step");
        const running = call(relay, "codex_run", { threadId: t.id, text: "go", waitSeconds: 5 });
        await hold.reached();
        const stopped = await call(relay, "codex_interrupt", { threadId: t.id });
        assert.equal(stopped.out.status, "interrupted", stopped.text);
        assert.match(stopped.text, /cancelled the run before its message was queued/);
        const run = await within(running, "codex_run answering after the interrupt");
        const receipt = run.out.receipt!;
        assert.equal(receipt.status, "not_sent", run.text);
        assert.equal(run.out.reason, "cancelled", run.text);
        assert.equal(run.out.turn, null, run.text);
        // Spawn mode reaps the turn host the cancelled start left (it waits at the barrier).
        await hold.release().catch(() => {});
        assert.equal(await sent(f, "thread/queue/add"), 0, "nothing was queued");
        assert.equal(await sent(f, "thread/queue/start"), 0, "nothing was started");
        const again = await call(relay, "codex_interrupt", { threadId: t.id });
        assert.equal(again.out.status, "not_running", "the run is gone");
      });
    });
  }

  Deno.test(`[${mode}] codex_interrupt while codex_review on a thread given by its name is at thread/read cancels it: not_sent, no review started`, async () => {
    const t = thread({ name: "reviewed" });
    const s: Scenario = { threads: [t], faults: [{ method: "thread/read", barrier: "step" }] };
    await withRelay(mode, s, async (relay, f) => {
      const hold = await f.barrier("step");
      const args = { threadId: "reviewed", target: "uncommitted", waitSeconds: 5 };
      const running = call(relay, "codex_review", args);
      await hold.reached();
      const stopped = await call(relay, "codex_interrupt", { threadId: t.id });
      assert.equal(stopped.out.status, "interrupted", stopped.text);
      const run = await within(running, "codex_review answering after the interrupt");
      const receipt = run.out.receipt as Structured;
      assert.deepEqual([receipt.status, receipt.threadId], ["not_sent", t.id], run.text);
      assert.equal(run.out.reason, "cancelled", run.text);
      await hold.release().catch(() => {});
      assert.equal(await sent(f, "review/start"), 0, "no review was started");
    });
  });

  Deno.test(`[${mode}] codex_interrupt while codex_run waits for a new thread's MCP servers cancels the run: not_sent, nothing queued`, async () => {
    const s: Scenario = {
      threads: [],
      newThreadScripts: [[{ end: "completed" }]],
      mcpServers: { slow: { command: "slow-mcp" } },
      mcpStartup: { slow: { barrier: "mcp-slow" } },
    };
    await withRelay(mode, s, async (relay, f) => {
      const slow = await f.barrier("mcp-slow");
      const running = call(relay, "codex_run", { cwd: "/workspace", text: "go", waitSeconds: 5 });
      await slow.reached();
      const listed = await call(relay, "codex_list_threads", {});
      const [starting] = listed.out.runs as Structured[];
      assert.ok(starting, listed.text);
      const stopped = await call(relay, "codex_interrupt", { threadId: starting.threadId });
      assert.equal(stopped.out.status, "interrupted", stopped.text);
      const run = await within(running, "codex_run answering after the interrupt");
      assert.deepEqual(run.out.receipt, {
        status: "not_sent",
        reason: "cancelled",
        message: "codex_interrupt cancelled the run before its message was queued",
        clientMessageId: starting.clientMessageId,
        threadId: starting.threadId,
      });
      assert.equal(run.out.turn, null, run.text);
      await slow.release().catch(() => {});
      assert.equal(await sent(f, "thread/queue/add"), 0, "nothing was queued");
    });
  });

  Deno.test(`[${mode}] three codex_run at once on one thread: one run, two turn_running, one message queued`, async () => {
    const t = thread({ scripts: [[{ barrier: "turn" }, { end: "completed" }]] });
    await withRelay(mode, { threads: [t] }, async (relay, f) => {
      const turn = await f.barrier("turn");
      const runs = await Promise.all(
        [1, 2, 3].map(() =>
          call(relay, "codex_run", { threadId: t.id, text: "go", waitSeconds: 1 })
        ),
      );
      const started = runs.filter((r) => r.out.turn !== null);
      const refused = runs.filter((r) => r.out.reason === "turn_running");
      assert.equal(started.length, 1, JSON.stringify(runs.map((r) => r.out)));
      assert.equal(refused.length, 2, JSON.stringify(runs.map((r) => r.out)));
      for (const r of refused) {
        assert.equal(r.out.receipt?.status, "not_sent", r.text);
      }
      assert.equal(await sent(f, "thread/queue/add"), 1, "one message was queued");
      await turn.reached();
      await turn.release();
      const id = started[0].out.receipt!.clientMessageId;
      const done = await call(relay, "codex_wait_reply", {
        threadId: t.id,
        clientMessageId: id,
        timeoutSeconds: 30,
      });
      assert.equal(done.out.turn?.status, "completed", done.text);
    });
  });
}

/** The pids of the fixture processes that resumed a thread (the turn host). */
async function turnHosts(f: FixtureHome): Promise<number[]> {
  const pids = (await f.requests()).filter((r) => r.method === "thread/resume").map((r) => r.pid);
  return [...new Set(pids)];
}

for (const form of ["single", "messages"] as const) {
  Deno.test(`[spawn] the turn host killed while codex_wait_reply (${form}) waits on its run: the wait answers within 2 s with the run's failed end, and so does the next`, async () => {
    const t = thread({ scripts: [[{ barrier: "turn" }, { end: "completed" }]] });
    await withRelay("spawn", { threads: [t] }, async (relay, f) => {
      const turn = await f.barrier("turn");
      const [run] = await Promise.all([
        call(relay, "codex_run", { threadId: t.id, text: "go", waitSeconds: 1 }),
        turn.reached(),
      ]);
      const clientMessageId = run.out.receipt!.clientMessageId;
      const ref = { threadId: t.id, clientMessageId };
      const args = form === "single" ? { ...ref, timeoutSeconds: 30 } : {
        messages: [ref],
        timeoutSeconds: 30,
      };
      const following = Promise.withResolvers<void>();
      const waiting = callTool(relay.client, "codex_wait_reply", args, {
        timeout: 60_000,
        onprogress: () => following.resolve(),
      });
      await within(following.promise, "codex_wait_reply following the run");
      const [host] = await turnHosts(f);
      Deno.kill(host, "SIGKILL");
      const lost = performance.now();
      const out = (await within(waiting, "the wait answering", 20_000)).structuredContent!;
      const ms = Math.round(performance.now() - lost);
      for (
        const result of [
          out,
          (await callTool(relay.client, "codex_wait_reply", args)).structuredContent!,
        ]
      ) {
        const one = form === "single" ? result : result.messages![0];
        assert.equal(one.timedOut, false, JSON.stringify(result));
        assert.equal(one.turn?.status, "failed", JSON.stringify(result));
        assert.match(String(one.error), /The connection to the app-server ended during the turn/);
        if (form === "messages") assert.equal(result.done, 1);
      }
      assert.ok(ms < 2_000, `answered ${ms} ms after the turn host was killed`);
      await turn.release().catch(() => {});
    });
  });
}
