/**
 * Issue 23, item 2: `codex_wait_reply {messages, until}` through `mod.ts
 * serve` against the fixture app-server, in spawn and daemon mode: three
 * runs of this relay followed by one wait (any returns at the first
 * completion with the others still running, all returns all three, a
 * timeout keeps `timedOut` per message), and an approval asked by one of
 * three followed turns offered in the wait's input round and answered into
 * the right turn.
 */

import assert from "assert";
import {
  callTool,
  type Replies,
  replyTexts,
  type ToolName,
  type ToolOutput,
} from "../../testing/call_tool.ts";
import type { ElicitResult } from "@modelcontextprotocol/client";
import type { ElicitParams, McpTestProtocol } from "../../testing/mcp_client.ts";
import {
  agentItem,
  type Barrier,
  commandApproval,
  FixtureHome,
  thread,
  turn,
  userItem,
} from "../../testing/fixture_home.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";
import type { TurnStep } from "../../fixtures/scenario.ts";

type Structured = Record<string, unknown>;
type Client = Awaited<ReturnType<typeof startRelay>>["client"];

const MODES = [
  { name: "spawn", flags: [] as string[] },
  { name: "daemon", flags: ["--app-server", "daemon"] },
];
/** The approval test also runs at the older MCP revision (input rounds as elicitation requests). */
const APPROVAL_RUNS = [
  ...MODES.map((m) => ({ ...m, protocol: "2026-07-28" as McpTestProtocol })),
  { ...MODES[0], protocol: "2025-11-25" as McpTestProtocol },
];

const approval = (command: string): TurnStep =>
  commandApproval({ itemId: `call_${command.replace(/\W/g, "_")}`, command });

/** A thread whose one turn waits at barrier `go_<key>`, then answers `Answer <key>.`. */
function held(key: string, before: TurnStep[] = []) {
  return thread({
    scripts: [[
      { barrier: `go_${key}` },
      ...before,
      { item: agentItem(`msg_${key}`, `Answer ${key}.`) },
      { end: "completed" },
    ]],
  });
}

async function withRelay(
  threads: ReturnType<typeof thread>[],
  flags: string[],
  fn: (client: Client, f: FixtureHome) => Promise<void>,
  onElicit?: (p: ElicitParams) => ElicitResult | Promise<ElicitResult>,
  protocol: McpTestProtocol = "2026-07-28",
): Promise<void> {
  const f = await FixtureHome.create({ threads });
  const relay = await startRelay({
    fixture: f,
    flags: ["--allow-turn-start", "--allow-reply-read", ...flags],
    protocol,
    onElicit,
  });
  const { code, left } = await closeAfter(relay, f, () => fn(relay.client, f));
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(left, [], "no helper is left in the process table");
}

async function call<N extends ToolName>(
  client: Client,
  name: N,
  args: Structured,
  progress?: string[],
  onFirstProgress?: () => void,
): Promise<ToolOutput<N>> {
  const result = await callTool(client, name, args, {
    timeout: 90_000,
    ...(progress
      ? {
        onprogress: (p) => {
          progress.push(String(p.message));
          onFirstProgress?.();
        },
      }
      : {}),
  });
  assert.ok(!result.isError, JSON.stringify(result.content));
  assert.ok(result.structuredContent, `${name} answered with structuredContent`);
  return result.structuredContent;
}

/** Starts a turn on each thread (the call returns while it waits at its barrier). */
async function runAll(
  client: Client,
  f: FixtureHome,
  keys: string[],
  threads: { id: string }[],
): Promise<{ refs: Structured[]; barriers: Map<string, Barrier> }> {
  const barriers = new Map<string, Barrier>();
  for (const k of keys) barriers.set(k, await f.barrier(`go_${k}`));
  const refs: Structured[] = [];
  for (const [i, t] of threads.entries()) {
    const run = await call(client, "codex_run", { threadId: t.id, text: "go", waitSeconds: 1 });
    assert.equal(run.turn?.status, "running", JSON.stringify(run));
    await barriers.get(keys[i])!.reached();
    refs.push({ threadId: t.id, clientMessageId: run.receipt.clientMessageId });
  }
  return { refs, barriers };
}

const texts = (m?: { replies?: Replies }) => replyTexts(m?.replies);

for (const mode of MODES) {
  Deno.test(`${mode.name}: a wait on three runs returns at the first completion (any), then at the last (all)`, async () => {
    const keys = ["a", "b", "c"];
    const threads = keys.map((k) => held(k));
    await withRelay(threads, mode.flags, async (client, f) => {
      const { refs, barriers } = await runAll(client, f, keys, threads);
      const progress: string[] = [];
      const began = performance.now();
      const waiting = Promise.withResolvers<void>();
      const any = call(
        client,
        "codex_wait_reply",
        { messages: refs, timeoutSeconds: 50 },
        progress,
        waiting.resolve,
      );
      // b ends only once the wait has said where it stands (else its first word may be "1 of 3").
      await waiting.promise;
      await barriers.get("b")!.release();
      const first = await any;
      assert.ok(performance.now() - began < 25_000, "woken by b's end, not the 50 s timeout");
      assert.equal(first.until, "any");
      assert.equal(first.done, 1, JSON.stringify(first));
      const [ma, mb, mc] = first.messages ?? [];
      assert.deepEqual([ma, mb, mc].map((m) => m.threadId), threads.map((t) => t.id), "in order");
      assert.equal(mb.timedOut, false);
      assert.deepEqual(texts(mb), ["Answer b."]);
      assert.equal(mb.turn?.status, "completed");
      for (const m of [ma, mc]) {
        assert.equal(m.timedOut, true, "not final when the wait returned");
        assert.equal(m.turn?.status, "running", JSON.stringify(m));
        assert.deepEqual(m.replies, []);
      }
      assert.equal(progress.at(0), "0 of 3 done");
      assert.equal(progress.at(-1), "1 of 3 done");

      const all = call(client, "codex_wait_reply", {
        messages: refs,
        until: "all",
        timeoutSeconds: 50,
      });
      await barriers.get("a")!.release();
      await barriers.get("c")!.release();
      const last = await all;
      assert.equal(last.until, "all");
      assert.equal(last.done, 3, JSON.stringify(last));
      assert.deepEqual(last.messages?.map(texts), [
        ["Answer a."],
        ["Answer b."],
        ["Answer c."],
      ]);
      assert.ok(last.messages?.every((m) => m.timedOut === false));
    });
  });

  Deno.test(`${mode.name}: a wait whose time runs out returns done < length, timedOut per message`, async () => {
    const keys = ["a", "b"];
    const threads = keys.map((k) => held(k));
    await withRelay(threads, mode.flags, async (client, f) => {
      const { refs, barriers } = await runAll(client, f, keys, threads);
      const settledB = call(client, "codex_wait_reply", { messages: [refs[1]] });
      await barriers.get("b")!.release();
      assert.equal((await settledB).done, 1);
      const out = await call(client, "codex_wait_reply", {
        messages: refs,
        until: "all",
        timeoutSeconds: 1,
      });
      assert.equal(out.done, 1, JSON.stringify(out));
      const [ma, mb] = out.messages ?? [];
      assert.equal(ma.timedOut, true);
      assert.equal(ma.turn?.status, "running");
      assert.equal(mb.timedOut, false);
      assert.deepEqual(texts(mb), ["Answer b."]);
      await barriers.get("a")!.release();
    });
  });
}

for (const mode of APPROVAL_RUNS) {
  Deno.test(`${mode.name} [${mode.protocol}]: an approval asked by one of three followed turns is answered into that turn`, async () => {
    const keys = ["a", "b", "c"];
    const threads = [
      held("a"),
      held("b", [approval("echo first")]),
      held("c", [approval("echo second")]),
    ];
    const asked: string[] = [];
    let barriers: Map<string, Barrier> | undefined;
    await withRelay(threads, mode.flags, async (client, f) => {
      const started = await runAll(client, f, keys, threads);
      barriers = started.barriers;
      const progress: string[] = [];
      const all = call(client, "codex_wait_reply", {
        messages: started.refs,
        until: "all",
        timeoutSeconds: 50,
      }, progress);
      await barriers.get("b")!.release();
      const out = await all;
      assert.equal(out.done, 3, JSON.stringify(out));
      assert.deepEqual(out.messages?.map(texts), [
        ["Answer a."],
        ["Answer b."],
        ["Answer c."],
      ]);
      assert.deepEqual(asked, ["echo first", "echo second"], "each asked once, in its own round");
      assert.ok(progress.includes("0 of 3 done; 1 waiting for approval"), progress.join(" | "));
      const answers = await f.answers();
      assert.equal(answers.length, 2);
      const requests = await f.requests();
      const resumePid = (t: { id: string }) =>
        requests.find((q) => q.method === "thread/resume" && q.params.threadId === t.id)!.pid;
      if (resumePid(threads[1]) !== resumePid(threads[2])) {
        // One app-server per turn: each answer went to its own turn's process.
        const byPid = new Map(answers.map((x) => [x.pid, x.result]));
        assert.deepEqual(byPid.get(resumePid(threads[1])), { decision: "accept" });
        assert.deepEqual(byPid.get(resumePid(threads[2])), { decision: "decline" });
      } else {
        // One app-server for all: b's request was sent first (id 0), c's after it was asked.
        const byId = new Map(answers.map((x) => [x.id, x.result]));
        assert.deepEqual(byId.get(0), { decision: "accept" });
        assert.deepEqual(byId.get(1), { decision: "decline" });
      }
    }, async (p) => {
      const command = String(p.message).match(/echo (first|second)/)![0];
      asked.push(command);
      if (command === "echo first") {
        // c asks only once b's request was offered: its request is the later one.
        await barriers!.get("c")!.release();
        return { action: "accept", content: { decision: "accept" } };
      }
      await barriers!.get("a")!.release();
      return { action: "decline" };
    }, mode.protocol);
  });
}

for (const mode of MODES) {
  Deno.test(`${mode.name}: one wait mixes a followed run, a stored answer read from Codex and an unknown thread`, async () => {
    const a = held("a");
    const stored = thread({
      turns: [turn([userItem("c1"), agentItem("msg_s", "Stored answer.")])],
    });
    await withRelay([a, stored], mode.flags, async (client, f) => {
      const { refs, barriers } = await runAll(client, f, ["a"], [a]);
      const messages = [
        refs[0],
        { threadId: stored.id, clientMessageId: "c1" },
        { threadId: "no such thread", clientMessageId: "x" },
      ];
      const any = await call(client, "codex_wait_reply", { messages, timeoutSeconds: 50 });
      assert.equal(any.done, 2, "the stored answer and the unknown thread are final at once");
      const [ma, ms, mu] = any.messages ?? [];
      assert.equal(ma.timedOut, true);
      assert.deepEqual(texts(ms), ["Stored answer."]);
      assert.equal(mu.status, "unavailable");
      assert.equal(mu.timedOut, false);
      const all = call(client, "codex_wait_reply", { messages, until: "all", timeoutSeconds: 50 });
      await barriers.get("a")!.release();
      const out = await all;
      assert.equal(out.done, 3, JSON.stringify(out));
      assert.deepEqual(texts(out.messages?.[0]), ["Answer a."]);
    });
  });
}

Deno.test("codex_wait_reply refuses both forms at once and a repeated message, clearly", async () => {
  const t = thread();
  await withRelay([t], [], async (client) => {
    const one = { threadId: t.id, clientMessageId: "m1" };
    for (
      const [args, says] of [
        [{ ...one, messages: [one] }, /not both/],
        [{ messages: [one, one] }, /messages\[1\] repeats an earlier message/],
        [{ messages: [] }, /messages/],
      ] as const
    ) {
      const r = await client.callTool({ name: "codex_wait_reply", arguments: args });
      assert.equal(r.isError, true, JSON.stringify(r));
      const text = (r.content as { text: string }[])[0].text;
      assert.match(text, says);
      assert.doesNotMatch(text, /\n\s+at /, "no stack trace");
    }
  });
});

Deno.test("codex_wait_reply {messages} refuses the same message named twice once resolved: the id in another case, or the thread by name", async () => {
  const t = thread({ name: "alpha" });
  await withRelay([t], [], async (client) => {
    const one = { threadId: t.id, clientMessageId: "m1" };
    for (
      const other of [
        { threadId: t.id.toUpperCase(), clientMessageId: "m1" },
        { threadId: "alpha", clientMessageId: "m1" },
      ]
    ) {
      const r = await client.callTool({
        name: "codex_wait_reply",
        arguments: { messages: [one, other], timeoutSeconds: 1 },
      });
      assert.equal(r.isError, true, JSON.stringify(r));
      const text = (r.content as { text: string }[])[0].text;
      assert.match(text, /messages\[1\] repeats an earlier message/);
    }
  });
});
