/**
 * The tools as an agent uses them (issue 14, points 6 to 10), through
 * `mod.ts serve` with the binary's permission set: thread names everywhere,
 * named threads and cwds in the list, codex_run's options, withdrawing a
 * queued message, and results that say what happened and what to do next.
 */

import assert from "assert";
import type { ElicitResult } from "@modelcontextprotocol/client";
import {
  agentItem,
  FixtureHome,
  jsonAt,
  thread,
  turn,
  userItem,
} from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import type { Scenario } from "../../fixtures/scenario.ts";
import { callTool, replyTexts, type ToolName } from "../../testing/call_tool.ts";
import { toolNames } from "../../src/host/tools/all_tools.ts";
import type { Capabilities } from "../../src/core/capabilities.ts";

type Structured = Record<string, unknown>;
type Client = Awaited<ReturnType<typeof startRelay>>["client"];

const FULL = ["--allow-reply-read", "--allow-turn-start"];

async function withRelay(
  s: Scenario,
  flags: string[],
  fn: (client: Client, f: FixtureHome) => Promise<void>,
  onElicit?: () => ElicitResult,
): Promise<void> {
  const f = await FixtureHome.create(s);
  const relay = await startRelay({ fixture: f, flags, protocol: "2026-07-28", onElicit });
  try {
    await fn(relay.client, f);
  } finally {
    const { code } = await relay.close();
    assert.equal(code, 0, "the relay exits 0 on stdin EOF");
    assert.deepEqual(f.alive(), [], "no helper is left in the process table");
    await f.dispose();
  }
}

async function call<N extends ToolName>(client: Client, name: N, args: Structured) {
  const result = await callTool(client, name, args, { timeout: 60_000 });
  return {
    out: result.structuredContent,
    text: (result.content as { text: string }[])[0].text,
    isError: result.isError === true,
  };
}

async function stateEvents(f: FixtureHome): Promise<Structured[]> {
  const text = await Deno.readTextFile(`${f.home}/fixture-state.jsonl`).catch(() => "");
  return text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

/** Every sentence of a rendered text ends with a full stop (or ? / !). */
function assertSentences(text: string): void {
  assert.match(text.trim(), /[.!?]$/, `ends with a full stop: ${text}`);
  // A sentence that starts without the previous one having ended ("... the id Nothing was").
  assert.doesNotMatch(text, /[a-z0-9)'] (Nothing|Check|Call|Read|It|The|Follow|Give) /, text);
}

// ------------------------------------------------------------ 6. names

Deno.test("every tool that takes a thread takes its exact name; results carry the UUID", async () => {
  const done = thread({
    name: "parser work",
    turns: [turn([userItem("m-1", "hi"), agentItem("a1", "Answer one.")])],
  });
  await withRelay(
    { threads: [done, thread({ name: "twin" }), thread({ name: "twin" })] },
    FULL,
    async (client) => {
      const read = await call(client, "codex_read_reply", {
        threadId: "parser work",
        clientMessageId: "m-1",
      });
      assert.equal(read.out.status, "observed");
      assert.equal(read.out.threadId, done.id, "the read carries the resolved UUID");
      assert.deepEqual(replyTexts(read.out.replies), ["Answer one."]);

      const wait = await call(client, "codex_wait_reply", {
        threadId: "parser work",
        clientMessageId: "m-1",
        timeoutSeconds: 1,
      });
      assert.equal(wait.out.status, "observed");
      assert.equal(wait.out.threadId, done.id);

      for (const name of ["codex_read_reply", "codex_wait_reply"] as const) {
        const twin = await call(client, name, { threadId: "twin", clientMessageId: "m-1" });
        assert.equal(twin.out.status, "unavailable", name);
        assert.equal(twin.out.reason, "ambiguous_name", name);
        assert.match(twin.text, /Give the thread's id/, name);
        assert.match(twin.out.next ?? "", /Give the thread's id/, name);
      }
      const run = await call(client, "codex_run", { threadId: "twin", text: "go" });
      assert.equal(run.out.reason, "ambiguous_name");
      assert.equal(run.out.receipt.status, "not_sent");
      assert.match(run.text, /Give the thread's id .*\. Nothing was stored/);
      const interrupt = await call(client, "codex_interrupt", { threadId: "twin" });
      assert.equal(interrupt.out.status, "unavailable");
      assert.equal(interrupt.out.reason, "ambiguous_name");
      const none = await call(client, "codex_interrupt", { threadId: "no such name" });
      assert.equal(none.out.reason, "thread_not_found");
      const idle = await call(client, "codex_interrupt", { threadId: "parser work" });
      assert.equal(idle.out.status, "not_running");
      assert.equal(idle.out.threadId, done.id);
    },
  );
});

Deno.test("codex_run runs in a thread given by name, and a cursor stays scoped to the UUID", async () => {
  const t = thread({
    name: "named",
    scripts: [[{ item: agentItem("f1", "Done.") }, { end: "completed" }]],
  });
  await withRelay({ threads: [t] }, FULL, async (client, f) => {
    const run = await call(client, "codex_run", { threadId: "named", text: "go" });
    assert.equal(run.out.threadId, t.id);
    assert.equal(run.out.receipt.threadId, t.id);
    assert.equal(run.out.turn?.status, "completed");
    const resume = (await f.requests()).find((r) => r.method === "thread/resume");
    assert.equal(resume?.params.threadId, t.id);
  });
});

// ------------------------------------------------------------ 7. telling threads apart

Deno.test("codex_run names the thread it creates; the turn-start list shows cwd and running threads as active", async () => {
  const other = thread({ name: "old", cwd: "/home/me/old" });
  const s: Scenario = {
    threads: [other],
    newThreadScripts: [[{ barrier: "hold-turn" }, { end: "completed" }]],
  };
  await withRelay(s, FULL, async (client, f) => {
    const hold = await f.barrier("hold-turn");
    const run = await call(client, "codex_run", {
      cwd: "/home/me/project",
      name: "Refactor parser",
      text: "go",
      waitSeconds: 1,
    });
    assert.equal(run.out.turn?.status, "running");
    const threadId = run.out.threadId as string;
    const named = (await f.requests()).find((r) => r.method === "thread/name/set");
    assert.deepEqual(named?.params, { threadId, name: "Refactor parser" });

    const list = await call(client, "codex_list_threads", {});
    const mine = list.out.threads.find((x) => x.id === threadId)!;
    assert.equal(mine.name, "Refactor parser");
    assert.equal(mine.cwd, "/home/me/project");
    assert.equal(mine.status, "active", "a thread the relay runs is not notLoaded");
    const old = list.out.threads.find((x) => x.id === other.id)!;
    assert.equal(old.cwd, "/home/me/old");
    assert.equal(old.status, "notLoaded");
    assert.match(list.text, /in \/home\/me\/project/);
    await hold.reached();
    await hold.release();
    const wait = await call(client, "codex_wait_reply", {
      threadId: "Refactor parser",
      clientMessageId: run.out.receipt.clientMessageId as string,
    });
    assert.equal(wait.out.threadId, threadId);
  });
});

Deno.test("below the turn-start level the list returns no cwd", async () => {
  const t = thread({ name: "x", cwd: "/secret/place" });
  for (const flags of [[], ["--allow-reply-read"]]) {
    await withRelay({ threads: [t] }, flags, async (client) => {
      const list = await call(client, "codex_list_threads", {});
      const [listed] = list.out.threads;
      assert.deepEqual(Object.keys(listed).sort(), ["folder", "id", "name", "status", "updatedAt"]);
      assert.equal(listed.folder, "place", "the last segment tells projects apart (issue 32)");
      assert.ok(!JSON.stringify(list).includes("/secret/place"));
    });
  }
});

Deno.test("codex_run refuses name with threadId (it names new threads only)", async () => {
  const t = thread();
  await withRelay({ threads: [t] }, FULL, async (client, f) => {
    const r = await callTool(client, "codex_run", { threadId: t.id, name: "x", text: "go" });
    assert.equal(r.isError, true);
    assert.match((r.content as { text: string }[])[0].text, /name names a new thread/);
    assert.deepEqual(await f.spawned(), []);
  });
});

// ------------------------------------------------------------ 8. codex_run's options

Deno.test("codex_run passes model, effort and tighter sandbox/approvals to Codex", async () => {
  const t = thread({ scripts: [[{ end: "completed" }]] });
  const s: Scenario = {
    threads: [t],
    config: { sandbox_mode: "workspace-write", approval_policy: "on-request" },
    newThreadScripts: [[{ end: "completed" }]],
  };
  await withRelay(s, FULL, async (client, f) => {
    // A model and effort of model/list (transcript 24's catalogue: issue 30 checks them).
    const options = {
      model: "gpt-5.5",
      effort: "high",
      sandbox: "read-only",
      approvalPolicy: "untrusted",
    };
    const inThread = await call(client, "codex_run", { threadId: t.id, text: "go", ...options });
    assert.equal(inThread.out.turn?.status, "completed");
    const inCwd = await call(client, "codex_run", {
      cwd: "/workspace",
      text: "go",
      sandbox: "workspace-write",
    });
    assert.equal(inCwd.out.turn?.status, "completed");
    const reqs = await f.requests();
    const resume = reqs.find((r) => r.method === "thread/resume")!.params;
    assert.equal(resume.model, "gpt-5.5");
    assert.equal(resume.sandbox, "read-only");
    assert.equal(resume.approvalPolicy, "untrusted");
    assert.equal(jsonAt(resume, "config", "model_reasoning_effort"), "high");
    const start = reqs.find((r) => r.method === "thread/start")!.params;
    assert.equal(start.sandbox, "workspace-write", "the same level is not looser");
    assert.equal(start.model, undefined);
    assert.equal(reqs.filter((r) => r.method === "config/read").length, 2, "one read per start");
  });
});

Deno.test("codex_run refuses a looser sandbox or approval policy; nothing is queued or started", async () => {
  const t = thread({ scripts: [[{ end: "completed" }]] });
  const s: Scenario = {
    threads: [t],
    config: { sandbox_mode: "read-only", approval_policy: "on-request" },
  };
  await withRelay(s, FULL, async (client, f) => {
    for (
      const [args, what] of [
        [
          { threadId: t.id, sandbox: "danger-full-access" },
          /sandbox danger-full-access is looser than the thread's read-only/,
        ],
        [
          { cwd: "/workspace", approvalPolicy: "never" },
          /approvalPolicy never is looser than the thread's on-request/,
        ],
      ] as const
    ) {
      const r = await call(client, "codex_run", { ...args, text: "go" });
      assert.equal(r.out.reason, "not_allowed");
      assert.equal(r.out.turn, null);
      assert.equal(r.out.receipt.status, "not_sent");
      assert.match(r.text, what);
      assert.match(r.text, /Nothing was stored/);
    }
    const methods = (await f.requests()).map((r) => r.method);
    assert.ok(!methods.includes("thread/queue/add"), "nothing was queued");
    assert.ok(!methods.includes("thread/start") && !methods.includes("thread/resume"));
  });
});

Deno.test("an unset sandbox counts as read-only: only read-only may be asked for", async () => {
  const s: Scenario = { threads: [], newThreadScripts: [[{ end: "completed" }]] };
  await withRelay(s, FULL, async (client) => {
    const loose = await call(client, "codex_run", {
      cwd: "/workspace",
      text: "go",
      sandbox: "workspace-write",
    });
    assert.equal(loose.out.reason, "not_allowed");
    assert.match(loose.text, /unset sandbox \(counted as read-only\)/);
    const tight = await call(client, "codex_run", {
      cwd: "/workspace",
      text: "go",
      sandbox: "read-only",
      approvalPolicy: "untrusted",
    });
    assert.equal(tight.out.turn?.status, "completed");
  });
});

Deno.test("codex_run refuses a cwd that does not exist (asked of Codex); nothing is started", async () => {
  const s: Scenario = {
    threads: [],
    directories: ["/workspace"],
    files: ["/workspace/README.md"],
    newThreadScripts: [[{ end: "completed" }]],
  };
  await withRelay(s, FULL, async (client, f) => {
    const missing = await call(client, "codex_run", { cwd: "/no/such/dir", text: "go" });
    assert.equal(missing.out.reason, "cwd_not_found");
    assert.match(missing.text, /\/no\/such\/dir does not exist/);
    assert.match(missing.text, /Nothing was stored/);
    const file = await call(client, "codex_run", { cwd: "/workspace/README.md", text: "go" });
    assert.equal(file.out.reason, "cwd_not_found");
    assert.match(file.text, /is not a directory/);
    const methods = (await f.requests()).map((r) => r.method);
    assert.equal(methods.filter((m) => m === "fs/getMetadata").length, 2);
    assert.ok(!methods.includes("thread/start") && !methods.includes("thread/queue/add"));
  });
});

Deno.test("codex_run says which messages queued ahead of its own its start also started (queuedAhead), with their turns", async () => {
  const t = thread({
    scripts: [[{ item: agentItem("e1", "Earlier done.") }, { end: "completed" }], [
      { item: agentItem("f1", "Mine done.") },
      { end: "completed" },
    ]],
  });
  await withRelay({ threads: [t] }, FULL, async (client, f) => {
    const earlier = await call(client, "codex_queue_message", { threadId: t.id, text: "first" });
    const earlierId = earlier.out.clientMessageId as string;
    const run = await call(client, "codex_run", { threadId: t.id, text: "second" });
    assert.equal(run.out.turn?.status, "completed");
    const listed = run.out.queuedAhead;
    assert.ok(listed, `queuedAhead in ${JSON.stringify(run.out)}`);
    assert.equal(listed.length, 1);
    assert.equal(listed[0].clientMessageId, earlierId);
    const turns = (await stateEvents(f)).filter((e) => e.e === "turn.upsert").map((e) =>
      jsonAt(e, "turn", "id")
    );
    assert.equal(listed[0].turnId, turns[0], "the earlier message's own turn");
    assert.notEqual(listed[0].turnId, run.out.turn?.id);
    assert.match(
      run.text,
      new RegExp(`also started 1 message\\(s\\) queued ahead of yours first: ${earlierId}`),
    );
    assert.ok(!run.text.includes('first"'), "no message text");
  });
});

Deno.test("codex_run never starts its own message ahead of earlier queued ones, whenever Codex starts the queue", async () => {
  // Codex starts a resumed thread's queue on its own task: the relay's next request may come first.
  const t = thread({
    resumeStartsQueueLate: true,
    scripts: [[{ item: agentItem("e1", "Earlier done.") }, { end: "completed" }], [
      { item: agentItem("f1", "Mine done.") },
      { end: "completed" },
    ]],
  });
  await withRelay({ threads: [t] }, FULL, async (client) => {
    const earlier = await call(client, "codex_queue_message", { threadId: t.id, text: "first" });
    const run = await call(client, "codex_run", { threadId: t.id, text: "second" });
    assert.equal(run.out.turn?.status, "completed");
    assert.deepEqual(run.out.replies, [{ itemId: "f1", text: "Mine done.", truncated: false }]);
    const listed = run.out.queuedAhead;
    assert.deepEqual(listed?.map((e) => e.clientMessageId), [earlier.out.clientMessageId]);
  });
});

// ------------------------------------------------------------ 9. withdrawing

Deno.test("codex_withdraw_message takes back a queued message (turn-start level)", async () => {
  const t = thread({ name: "later" });
  await withRelay({ threads: [t] }, ["--allow-turn-start"], async (client, f) => {
    const { tools } = await client.listTools();
    assert.ok(tools.some((x) => x.name === "codex_withdraw_message"));
    const q = await call(client, "codex_queue_message", { threadId: t.id, text: "oops" });
    const id = q.out.clientMessageId as string;
    const w = await call(client, "codex_withdraw_message", {
      threadId: "later",
      clientMessageId: id,
    });
    const { next, ...withdrawn } = w.out;
    assert.deepEqual(withdrawn, { status: "withdrawn", threadId: t.id, clientMessageId: id });
    assert.match(w.text, /^Withdrawn .*will not run\. /);
    assert.ok(w.text.endsWith(next));
    const del = (await f.requests()).find((r) => r.method === "thread/queue/delete");
    assert.deepEqual(del?.params, { threadId: t.id, queuedSubmissionId: q.out.queuedSubmissionId });
    const queued = (await stateEvents(f)).filter((e) => e.e === "queue.remove");
    assert.equal(queued.length, 1, "the queue no longer holds it");

    const again = await call(client, "codex_withdraw_message", {
      threadId: t.id,
      clientMessageId: id,
    });
    assert.equal(again.out.status, "not_found");
    // The turn-start level includes reply read: the items were read, so the text can tell.
    assert.match(again.text, /neither in the thread's queue nor among its items/);
    assertSentences(again.text);
    const methods = (await f.requests()).map((r) => r.method);
    assert.equal(
      methods.filter((m) => m === "thread/queue/delete").length,
      1,
      "nothing listed, nothing deleted",
    );
  });
});

Deno.test("with reply read a message a turn already took is already_taken", async () => {
  const t = thread({ turns: [turn([userItem("taken-1", "hi"), agentItem("a", "x")])] });
  await withRelay({ threads: [t] }, FULL, async (client) => {
    const taken = await call(client, "codex_withdraw_message", {
      threadId: t.id,
      clientMessageId: "taken-1",
    });
    assert.equal(taken.out.status, "already_taken");
    const never = await call(client, "codex_withdraw_message", {
      threadId: t.id,
      clientMessageId: "never-queued",
    });
    assert.equal(never.out.status, "not_found");
    assert.match(never.text, /neither in the thread's queue nor among its items/);
  });
});

Deno.test("a delete whose answer was lost is unknown and is not sent again", async () => {
  const t = thread();
  const s: Scenario = {
    threads: [t],
    faults: [{ method: "thread/queue/delete", action: { loseAnswer: 0 } }],
  };
  await withRelay(s, ["--allow-turn-start"], async (client, f) => {
    const q = await call(client, "codex_queue_message", { threadId: t.id, text: "oops" });
    const w = await call(client, "codex_withdraw_message", {
      threadId: t.id,
      clientMessageId: q.out.clientMessageId as string,
    });
    assert.equal(w.out.status, "unknown");
    assert.match(w.text, /was not sent again/);
    const deletes = (await f.requests()).filter((r) => r.method === "thread/queue/delete");
    assert.equal(deletes.length, 1, "never retried blindly");
  });
});

Deno.test("withdrawing from an ambiguous name does nothing", async () => {
  await withRelay(
    { threads: [thread({ name: "twin" }), thread({ name: "twin" })] },
    ["--allow-turn-start"],
    async (client, f) => {
      const w = await call(client, "codex_withdraw_message", {
        threadId: "twin",
        clientMessageId: "x",
      });
      assert.equal(w.out.status, "unavailable");
      assert.equal(w.out.reason, "ambiguous_name");
      assert.match(w.text, /Nothing was deleted\. Give the thread's id/);
      assert.ok(!(await f.requests()).some((r) => r.method.startsWith("thread/queue/")));
    },
  );
});

// ------------------------------------------------------------ 10. results an agent can act on

/**
 * The most `tools/list` may take at the full level, in bytes of JSON (issue 21: it was 16 KB; 10
 * KiB for seven tools; issue 30: 14 KiB with codex_review, codex_steer and outputSchema; issue
 * 38: 15 KiB with a running turn's `activity`; issue 41: changedFiles; issue 42: 16 KiB with codex_usage, codex_fork, codex_compact and usage in results; issue 50: 16.5 KiB
 * with images on codex_run and codex_steer).
 */
const FULL_LIST_MAX = 16.5 * 1024;
/** With `--allow-worktrees` too: codex_worktree and codex_run's worktree field and result (issue 41). */
const WORKTREES_LIST_MAX = 18 * 1024;

// Every input field carries its description, and output schemas advertise the top level of each
// result (every field, its type and enum); nested fields are named in the text.
Deno.test("tools/list at the full level is at most 16.5 KiB, 18 KiB with --allow-worktrees, every tool there", async () => {
  const levels: [string[], Capabilities, number][] = [
    [FULL, { replyRead: true, turnStart: true }, FULL_LIST_MAX],
    [
      [...FULL, "--allow-worktrees"],
      { replyRead: true, turnStart: true, worktrees: true },
      WORKTREES_LIST_MAX,
    ],
  ];
  for (const [flags, caps, max] of levels) {
    await withRelay({ threads: [] }, flags, async (client) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), toolNames(caps));
      const bytes = new TextEncoder().encode(JSON.stringify({ tools })).length;
      assert.ok(bytes <= max, `tools/list with ${flags.join(" ")} is ${bytes} bytes`);
      for (const tool of tools) {
        assert.ok(tool.outputSchema && tool.inputSchema, tool.name);
        assert.ok(!("$schema" in tool.inputSchema), "no $schema per tool");
      }
    });
  }
});

Deno.test("at the default level codex_queue_message does not point at tools that are off", async () => {
  const t = thread();
  await withRelay({ threads: [t] }, [], async (client) => {
    const { tools } = await client.listTools();
    const queue = tools.find((x) => x.name === "codex_queue_message")!;
    assert.doesNotMatch(queue.description ?? "", /codex_read_reply/);
    const q = await call(client, "codex_queue_message", { threadId: t.id, text: "hi" });
    assert.doesNotMatch(q.text, /codex_read_reply|codex_wait_reply/);
    assert.match(q.text, /^Queued /);
    assertSentences(q.text);
  });
  await withRelay({ threads: [t] }, ["--allow-reply-read"], async (client) => {
    const q = await call(client, "codex_queue_message", { threadId: t.id, text: "hi" });
    assert.match(q.text, /codex_read_reply/);
  });
});

Deno.test("errors joined into a text end each sentence with a full stop", async () => {
  await withRelay(
    { threads: [thread({ name: "twin" }), thread({ name: "twin" })] },
    [],
    async (client) => {
      const q = await call(client, "codex_queue_message", { threadId: "twin", text: "hi" });
      assert.equal(q.out.reason, "ambiguous_name");
      assert.match(
        q.text,
        /Give the thread's id \(codex_list_threads lists them\)\. Nothing was stored/,
      );
    },
  );
});

Deno.test("an interrupted turn does not say it has no final answer yet", async () => {
  const t = thread({ scripts: [[{ barrier: "never" }, { end: "completed" }]] });
  await withRelay({ threads: [t] }, FULL, async (client, f) => {
    await f.barrier("never");
    const run = await call(client, "codex_run", { threadId: t.id, text: "go", waitSeconds: 1 });
    const id = run.out.receipt.clientMessageId as string;
    const stop = await call(client, "codex_interrupt", { threadId: t.id });
    assert.equal(stop.out.status, "interrupted");
    assert.match(stop.text, /^Interrupted the turn/);
    const read = await call(client, "codex_read_reply", { threadId: t.id, clientMessageId: id });
    assert.equal(read.out.turn?.status, "interrupted");
    assert.doesNotMatch(read.text, /yet/);
    assert.match(read.text, /interrupted without a final answer\./);
  });
});

Deno.test("a running-turn wait result is short and says what to do next", async () => {
  const t = thread({ turns: [turn([userItem("run-1", "hi")], { status: "inProgress" })] });
  await withRelay({ threads: [t] }, ["--allow-reply-read"], async (client) => {
    const wait = await call(client, "codex_wait_reply", {
      threadId: t.id,
      clientMessageId: "run-1",
      timeoutSeconds: 1,
    });
    assert.equal(wait.out.timedOut, true);
    const cursor = String(wait.out.nextCursor);
    const turnId = wait.out.turn?.id as string;
    const explanation = wait.text.replaceAll(t.id, "").replaceAll("run-1", "").replaceAll(
      turnId,
      "",
    );
    assert.ok(explanation.length <= 180, `explanation is ${explanation.length} characters`);
    assert.match(wait.text, /timed out; call codex_wait_reply again to keep waiting\.$/);
    assert.ok(cursor.length > 0);
  });
});

Deno.test("an accepted approval whose answer lacked a field says why it counted as a decline", async () => {
  const t = thread({
    scripts: [[{
      request: {
        method: "item/commandExecution/requestApproval",
        params: {
          kind: "command",
          itemId: "call_1",
          reason: "mock wants to run it",
          command: "/bin/bash -lc 'touch x'",
          cwd: "/workspace",
          commandActions: [],
          availableDecisions: ["accept", "cancel"],
        },
      },
    }, { end: "completed" }]],
  });
  await withRelay({ threads: [t] }, FULL, async (client, f) => {
    const run = await call(client, "codex_run", { threadId: t.id, text: "go" });
    assert.equal(run.out.turn?.status, "completed");
    const notes = run.out.notes as string[];
    assert.equal(notes.length, 1);
    assert.match(notes[0], /counted as a decline: decision is required/);
    assert.match(run.text, /counted as a decline: decision is required\./);
    assert.deepEqual((await f.answers()).map((a) => a.result), [{ decision: "decline" }]);
  }, () => ({ action: "accept", content: {} }));
});

Deno.test("progress names what Codex is doing, never its text or output", async () => {
  const t = thread({
    scripts: [[
      {
        item: {
          type: "commandExecution",
          id: "c1",
          command: "cat /etc/SECRET-CMD",
          aggregatedOutput: "SECRET-OUT",
          status: "completed",
        },
      },
      {
        item: {
          type: "fileChange",
          id: "fc1",
          changes: [{ path: "/a" }, { path: "/b" }],
          status: "completed",
        },
      },
      {
        item: {
          type: "mcpToolCall",
          id: "m1",
          server: "docs",
          tool: "search",
          arguments: { q: "SECRET-ARG" },
          status: "completed",
        },
      },
      { item: agentItem("f1", "SECRET-ANSWER") },
      { end: "completed" },
    ]],
  });
  await withRelay({ threads: [t] }, ["--allow-turn-start"], async (client) => {
    const progress: string[] = [];
    await callTool(client, "codex_run", { threadId: t.id, text: "go" }, {
      timeout: 60_000,
      onprogress: (p) => void progress.push(String(p.message)),
    });
    const all = progress.join("\n");
    assert.match(all, /Codex is running a command/);
    assert.match(all, /Codex is editing 2 files/);
    assert.match(all, /Codex is calling tool search of server docs/);
    assert.doesNotMatch(all, /SECRET/);
  });
});

Deno.test("every tool's structured content says what to do next, as its text does (issue 32)", async () => {
  const t = thread({
    name: "done",
    turns: [turn([userItem("m-1", "hi"), agentItem("a1", "Answer one.")])],
    scripts: [[{ item: agentItem("f1", "Done.") }, { end: "completed" }]],
  });
  await withRelay({ threads: [t] }, FULL, async (client) => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const props = tool.outputSchema?.properties as Record<string, unknown> | undefined;
      assert.deepEqual(props?.next, { type: "string" }, `${tool.name} advertises next`);
      assert.ok((tool.outputSchema?.required as string[]).includes("next"), tool.name);
    }
    const calls: [ToolName, Structured][] = [
      ["codex_list_threads", {}],
      ["codex_queue_message", { threadId: t.id, text: "later" }],
      ["codex_read_reply", { threadId: t.id, clientMessageId: "m-1" }],
      ["codex_wait_reply", { threadId: t.id, clientMessageId: "m-1", timeoutSeconds: 1 }],
      ["codex_run", { threadId: t.id, text: "go" }],
      ["codex_interrupt", { threadId: t.id }],
      ["codex_withdraw_message", { threadId: t.id, clientMessageId: "never-queued" }],
    ];
    for (const [name, args] of calls) {
      const r = await call(client, name, args);
      const next = r.out.next;
      assert.equal(typeof next, "string", `${name}: next in ${JSON.stringify(r.out)}`);
      assert.ok(next.length > 0, name);
      assert.ok(r.text.endsWith(next), `${name}: the text ends with next: ${r.text}`);
    }
  });
});

Deno.test("a wait on a message still queued says so and returns; a made-up id is not_found (issue 32)", async () => {
  const t = thread({ turns: [turn([userItem("m-1", "hi"), agentItem("a1", "Answer one.")])] });
  await withRelay({ threads: [t] }, ["--allow-reply-read"], async (client) => {
    const q = await call(client, "codex_queue_message", { threadId: t.id, text: "later" });
    const id = q.out.clientMessageId;
    const started = performance.now();
    const wait = await call(client, "codex_wait_reply", {
      threadId: t.id,
      clientMessageId: id,
      timeoutSeconds: 30,
    });
    assert.ok(performance.now() - started < 20_000, "no turn runs: nothing to wait for");
    assert.equal(wait.out.status, "queued");
    assert.equal(wait.out.turnRunning, false);
    assert.equal(wait.out.timedOut, false);
    assert.match(wait.out.next ?? "", /next resumes the thread; waiting does not start it\./);
    assert.doesNotMatch(wait.text, /may still be queued/);
    const read = await call(client, "codex_read_reply", { threadId: t.id, clientMessageId: id });
    assert.equal(read.out.status, "queued");

    const made = await call(client, "codex_wait_reply", {
      threadId: t.id,
      clientMessageId: "made-up-id",
      timeoutSeconds: 30,
    });
    assert.equal(made.out.status, "not_found");
    assert.equal(made.out.timedOut, false);
    assert.match(made.out.next ?? "", /Check the threadId and clientMessageId/);
  });
});

Deno.test("codex_list_threads lists codex exec threads, not sub-agent ones, says which sources, and searches titles (issue 32)", async () => {
  const exec = thread({ name: "nightly lint", source: "exec", cwd: "/home/me/api" });
  const tui = thread({ name: "parser work", source: "cli", cwd: "/home/me/parser" });
  const review = thread({ name: "review of parser", source: "subAgentReview" });
  for (const flags of [[], ["--allow-reply-read"], FULL]) {
    await withRelay({ threads: [exec, tui, review] }, flags, async (client, f) => {
      const list = await call(client, "codex_list_threads", {});
      const ids = list.out.threads.map((x) => x.id).sort();
      assert.deepEqual(ids, [exec.id, tui.id].sort(), flags.join(" "));
      assert.deepEqual(list.out.sources, ["cli", "vscode", "exec", "appServer", "unknown"]);
      const folders = list.out.threads.map((x) => x.folder).sort();
      assert.deepEqual(folders, ["api", "parser"]);
      const found = await call(client, "codex_list_threads", { search: "PARSER" });
      assert.deepEqual(found.out.threads.map((x) => x.id), [tui.id]);
      const sent = (await f.requests()).filter((r) => r.method === "thread/list").at(-1);
      assert.equal((sent?.params as Structured).searchTerm, "PARSER");
      // A name resolves among the same threads: the exec thread takes a message by its name.
      const q = await call(client, "codex_queue_message", { threadId: "nightly lint", text: "hi" });
      assert.equal(q.out.status, "queued");
      assert.equal(q.out.threadId, exec.id);
    });
  }
});

Deno.test("an approval the client cancels names itself in the run's result: which request, which command, who (issue 32)", async () => {
  const t = thread({
    scripts: [[
      {
        request: {
          method: "item/commandExecution/requestApproval",
          params: {
            kind: "command",
            itemId: "call_1",
            reason: "mock wants to run it",
            command: "/bin/bash -lc 'touch x'",
            cwd: "/workspace",
            commandActions: [],
            availableDecisions: ["accept", "decline", "cancel"],
          },
        },
      },
      { item: agentItem("f1", "Ran it.") },
      { end: "completed" },
    ]],
  });
  await withRelay({ threads: [t] }, FULL, async (client, f) => {
    const run = await call(client, "codex_run", { threadId: t.id, text: "go" });
    assert.equal(run.out.turn?.status, "interrupted");
    assert.deepEqual((await f.answers()).map((a) => a.result), [{ decision: "cancel" }]);
    const notes = (run.out.notes ?? []).join("\n");
    assert.match(notes, /Codex's command approval ".*touch x.*" was cancelled: the MCP client/);
    assert.match(run.text, /The turn was interrupted \(/);
    assert.match(run.out.next ?? "", /cancelled request/);
  }, () => ({ action: "cancel" }));
});
