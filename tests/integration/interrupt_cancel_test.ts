/**
 * "Cancel really cancels" (`codex_interrupt`), through `mod.ts serve` with
 * the fixture: a message still queued behind a running turn is withdrawn
 * (deleted from the thread's queue, confirmed; only this relay's own), not
 * answered `not_running`; a running turn is interrupted and the next
 * `codex_wait_reply` sees `interrupted`. Another process's queued message
 * and another turn are never touched (in spawn mode a turn running in the
 * run's own app-server ends with it).
 */

import assert from "assert";
import { callTool, type ToolName } from "../../testing/call_tool.ts";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";

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

/** The clientUserMessageIds in the thread's queue now (the fixture's shared store). */
async function queued(f: FixtureHome, threadId: string): Promise<string[]> {
  const text = await Deno.readTextFile(`${f.home}/fixture-state.jsonl`).catch(() => "");
  const events = text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const queue = new Map<string, string>();
  for (const e of events.filter((e) => e.threadId === threadId)) {
    if (e.e === "queue.add") queue.set(e.submission.id, e.submission.clientUserMessageId);
    if (e.e === "queue.remove") queue.delete(e.id);
  }
  return [...queue.values()];
}

async function sent(f: FixtureHome, method: string): Promise<number> {
  return (await f.requests()).filter((r) => r.method === method).length;
}

/** `codex_run` on `threadId`, answered while its turn waits at the fixture's barrier `name`. */
async function runHeldAt(relay: Relay, f: FixtureHome, threadId: string, name: string) {
  const hold = await f.barrier(name);
  const [run] = await Promise.all([
    call(relay, "codex_run", { threadId, text: "go", waitSeconds: 1 }),
    hold.reached(),
  ]);
  assert.equal(run.out.turn?.status, "running", run.text);
  return { run, hold };
}

async function listedRuns(relay: Relay) {
  return (await call(relay, "codex_list_threads", {})).out.runs ?? [];
}

async function withRelay(
  mode: "spawn" | "daemon",
  t: ReturnType<typeof thread>,
  fn: (relay: Relay, f: FixtureHome) => Promise<void>,
): Promise<void> {
  const f = await FixtureHome.create({ threads: [t] });
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
  Deno.test(`[${mode}] codex_interrupt with the clientMessageId of a message codex_queue_message queued behind the run withdraws it; the user's queued message and the run are untouched`, async () => {
    const t = thread({
      scripts: [[{ barrier: "hold" }, { end: "completed" }], [{ end: "completed" }]],
    });
    await withRelay(mode, t, async (relay, f) => {
      const { hold } = await runHeldAt(relay, f, t.id, "hold");
      const q = await call(relay, "codex_queue_message", { threadId: t.id, text: "later" });
      assert.equal(q.out.status, "queued", q.text);
      const mine = String(q.out.clientMessageId);
      await f.queueAsUser(t.id, "users-own-message");
      assert.deepEqual(await queued(f, t.id), [mine, "users-own-message"]);

      const theirs = await call(relay, "codex_interrupt", {
        threadId: t.id,
        clientMessageId: "users-own-message",
      });
      assert.equal(theirs.out.status, "not_running", theirs.text);
      assert.equal(theirs.out.reason, "not_queued_here");
      assert.equal(await sent(f, "thread/queue/delete"), 0, "no delete was sent");

      const withdrawn = await call(relay, "codex_interrupt", {
        threadId: t.id,
        clientMessageId: mine,
      });
      assert.equal(withdrawn.out.status, "withdrawn", withdrawn.text);
      assert.ok(String(withdrawn.out.message).includes(mine), withdrawn.text);
      assert.match(withdrawn.text, /deleted from the thread's queue and will not run\. /);
      assert.deepEqual(await queued(f, t.id), ["users-own-message"], "only its own was deleted");
      assert.equal(await sent(f, "turn/interrupt"), 0, "the run was not interrupted");
      const runs = await listedRuns(relay);
      assert.deepEqual(runs.map((r) => r.state), ["running"]);
      await hold.release();
    });
  });

  Deno.test(`[${mode}] codex_interrupt stops a running turn and the next codex_wait_reply sees interrupted`, async () => {
    const t = thread({ scripts: [[{ barrier: "never-released" }, { end: "completed" }]] });
    await withRelay(mode, t, async (relay, f) => {
      const { run } = await runHeldAt(relay, f, t.id, "never-released");
      const clientMessageId = run.out.receipt.clientMessageId;
      const stopped = await call(relay, "codex_interrupt", { threadId: t.id });
      assert.equal(stopped.out.status, "interrupted", stopped.text);
      assert.equal(await sent(f, "turn/interrupt"), 1);
      const wait = await call(relay, "codex_wait_reply", {
        threadId: t.id,
        clientMessageId,
        timeoutSeconds: 5,
      });
      assert.equal(wait.out.turn?.status, "interrupted", wait.text);
      const runs = await listedRuns(relay);
      assert.deepEqual(runs.map((r) => [r.clientMessageId, r.state]), [
        [clientMessageId, "interrupted"],
      ]);
    });
  });
}

Deno.test("[daemon] codex_interrupt on the relay's run still queued behind another turn withdraws its message, leaves that turn running, and the run ends interrupted", async () => {
  const t = thread({
    loadedWith: { sandbox: "workspace-write", approvalPolicy: "on-request" },
    scripts: [[{ barrier: "other-turn" }, { end: "completed" }], [{ end: "completed" }]],
  });
  await withRelay("daemon", t, async (relay, f) => {
    const other = await f.barrier("other-turn");
    // The daemon holds the thread idle: a queued message starts a turn at once.
    const [first] = await Promise.all([
      call(relay, "codex_queue_message", { threadId: t.id, text: "first" }),
      other.reached(),
    ]);
    assert.equal(first.out.status, "queued", first.text);
    const run = await call(relay, "codex_run", { threadId: t.id, text: "go", waitSeconds: 1 });
    assert.equal(run.out.turn?.status, "running", run.text);
    const clientMessageId = String(run.out.receipt.clientMessageId);
    assert.deepEqual(await queued(f, t.id), [clientMessageId], "it waits in the queue");
    assert.deepEqual((await listedRuns(relay)).map((r) => [r.clientMessageId, r.state]), [
      [clientMessageId, "queued"],
    ]);

    const out = await call(relay, "codex_interrupt", { threadId: t.id });
    assert.equal(out.out.status, "withdrawn", out.text);
    assert.ok(String(out.out.message).includes(clientMessageId), out.text);
    assert.deepEqual(await queued(f, t.id), [], "deleted from the queue: it will not run");
    assert.equal(await sent(f, "turn/interrupt"), 0, "the other turn is not interrupted");
    assert.deepEqual((await listedRuns(relay)).map((r) => [r.clientMessageId, r.state]), [
      [clientMessageId, "interrupted"],
    ]);
    await other.release();
  });
});

Deno.test("[spawn] codex_interrupt on the relay's run queued behind an earlier queued message's turn withdraws its message; the run ends interrupted", async () => {
  const t = thread({
    scripts: [[{ barrier: "earlier" }, { end: "completed" }], [{ end: "completed" }]],
  });
  await withRelay("spawn", t, async (relay, f) => {
    await f.queueAsUser(t.id, "users-earlier");
    // The resume starts the user's earlier message first; the run's own waits behind it.
    const { run } = await runHeldAt(relay, f, t.id, "earlier");
    const clientMessageId = String(run.out.receipt.clientMessageId);
    assert.deepEqual(await queued(f, t.id), [clientMessageId]);
    assert.deepEqual((await listedRuns(relay)).map((r) => r.state), ["queued"]);
    const out = await call(relay, "codex_interrupt", { threadId: t.id });
    assert.equal(out.out.status, "withdrawn", out.text);
    assert.deepEqual(await queued(f, t.id), [], "its message will not run");
    assert.deepEqual(f.alive(), [], "the earlier turn ended with the run's app-server");
    assert.deepEqual((await listedRuns(relay)).map((r) => [r.clientMessageId, r.state]), [
      [clientMessageId, "interrupted"],
    ]);
  });
});
