/**
 * A client that stops the relay with a signal waits only briefly before a
 * harder one (Claude Code: SIGINT, then SIGTERM after 100 ms, logging
 * "SIGINT failed"): the relay started as users start it exits 0 well within
 * that, with a read open on a helper that ignores stdin EOF and SIGTERM, and
 * leaves no process behind.
 */
import assert from "assert";
import { FixtureHome, thread, turn, userItem } from "../../testing/fixture_home.ts";
import { relayArgs, startRelay } from "../../testing/relay.ts";
import { denoChildEnv } from "../../testing/child_env.ts";
import { callTool } from "../../testing/call_tool.ts";

/** Claude Code's wait between SIGINT and SIGTERM. */
const CLIENT_PATIENCE_MS = 100;

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test(`the relay exits within ${CLIENT_PATIENCE_MS} ms of ${signal} while a read is open`, async () => {
    const t = thread({ turns: [turn([userItem("c1")], { status: "inProgress" })] });
    const f = await FixtureHome.create({
      threads: [t],
      startup: { stubborn: true },
      faults: [{ method: "thread/items/list", barrier: "read" }],
    });
    const relay = await startRelay({
      fixture: f,
      protocol: "2026-07-28",
      flags: ["--allow-reply-read"],
    });
    try {
      const read = await f.barrier("read");
      const waiting = callTool(relay.client, "codex_wait_reply", {
        threadId: t.id,
        clientMessageId: "c1",
        timeoutSeconds: 30,
      }).catch((e) => e);
      await read.reached();
      const sent = performance.now();
      Deno.kill(relay.transport.pid!, signal);
      const status = await relay.transport.exited;
      const tookMs = performance.now() - sent;
      assert.equal(status.code, 0);
      assert.ok(tookMs < CLIENT_PATIENCE_MS, `exited ${Math.round(tookMs)} ms after ${signal}`);
      await waiting;
      assert.deepEqual(f.alive(), [], "the helper's process group is gone");
    } finally {
      await relay.close();
      await f.dispose();
    }
  });
}

/**
 * What Claude Code 2.1.332 sends a relay in its first 20 ms (captured under `claude mcp list`,
 * ../shared/claude-code/README.md): a `server/discover` probe, then a `subscriptions/listen`
 * that stays open until the server ends it; it sends SIGINT right after `tools/list`.
 */
const CLAUDE_CODE_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "claude-code", version: "2.1.332" },
  "io.modelcontextprotocol/clientCapabilities": { roots: { listChanged: true } },
};
const CLAUDE_CODE_FIRST = [
  { id: "server-discover-probe-1", method: "server/discover", params: { _meta: CLAUDE_CODE_META } },
  {
    id: "listen:0",
    method: "subscriptions/listen",
    params: { _meta: CLAUDE_CODE_META, notifications: { toolsListChanged: true } },
  },
];

Deno.test(`the relay exits within ${CLIENT_PATIENCE_MS} ms of SIGINT with Claude Code's subscriptions/listen open (issue 47)`, async () => {
  const f = await FixtureHome.create({ threads: [thread()] });
  const child = new Deno.Command(Deno.execPath(), {
    args: relayArgs(),
    env: denoChildEnv(f.env),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let seen = "";
    for (const message of CLAUDE_CODE_FIRST) {
      await writer.write(
        new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`),
      );
      // Each is answered or acknowledged before the next, as Claude Code waits.
      while (!seen.includes("\n")) seen += (await lines.read()).value ?? "";
      seen = seen.slice(seen.indexOf("\n") + 1);
    }
    const sent = performance.now();
    child.kill("SIGINT");
    const rest = (async () => {
      while (!(await lines.read()).done);
    })();
    const status = await child.status;
    const tookMs = performance.now() - sent;
    await rest;
    assert.equal(status.code, 0);
    assert.ok(tookMs < CLIENT_PATIENCE_MS, `exited ${Math.round(tookMs)} ms after SIGINT`);
  } finally {
    await writer.close().catch(() => {});
    await f.dispose();
  }
});
