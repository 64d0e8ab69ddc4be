/**
 * Protects: `codex-relay hook-wait` through `mod.ts` with the relay's permissions, on the fixture
 * app-server (docs/design.md, "Push"): a turn that ended since the tool's result wakes (exit 2,
 * the text on stderr, stdout empty); a thread it cannot read is exit 1 (wakes no one); a final
 * result is silent and starts no Codex.
 */

import assert from "assert";
import { agentItem, FixtureHome, thread, turn, userItem } from "../../testing/fixture_home.ts";
import { entryArgs } from "../../testing/relay.ts";

const MESSAGE = "0961d298-b844-4bfe-8820-c0de4e1ad496";

function input(threadId: string, status: string): string {
  return JSON.stringify({
    hook_event_name: "PostToolUse",
    tool_name: "mcp__codex-relay__codex_run",
    transcript_path: "/nowhere/transcript.jsonl",
    tool_response: JSON.stringify({
      receipt: { status: "queued", threadId, clientMessageId: MESSAGE },
      threadId,
      turn: { id: "t", status },
    }),
  });
}

async function hookWait(f: FixtureHome, stdin: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: entryArgs(["hook-wait", "--timeout-minutes", "1"], { cachedOnly: true, noPrompt: true }),
    env: f.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("hook-wait: a turn that ended since the result wakes the agent; an unreadable thread is exit 1; a final result is silent", async () => {
  const done = thread({
    turns: [turn([userItem(MESSAGE, "fix it"), agentItem("a1", "All green now.")])],
  });
  const f = await FixtureHome.create({ threads: [done] });
  try {
    const woke = await hookWait(f, input(done.id, "running"));
    assert.equal(woke.code, 2, woke.stderr);
    assert.equal(woke.stdout, "");
    assert.match(woke.stderr, /^Codex run ended: completed/);
    assert.match(woke.stderr, /All green now\./);

    const missing = await hookWait(f, input("01a22a5c-0000-7000-8000-000000000000", "running"));
    assert.equal(missing.code, 1, missing.stderr);
    assert.match(
      missing.stderr,
      /^codex-relay hook-wait: cannot follow the run: unavailable \(thread_not_found\)/,
    );

    const before = (await f.requests()).length;
    const silent = await hookWait(f, input(done.id, "completed"));
    assert.deepEqual([silent.code, silent.stdout, silent.stderr], [0, "", ""]);
    assert.equal((await f.requests()).length, before, "no Codex was asked");
  } finally {
    await f.dispose();
  }
});
