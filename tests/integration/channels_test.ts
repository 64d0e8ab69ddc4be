/**
 * Protects: the Channels route of the push (`serve --channels`, docs/design.md "Push") at the
 * protocol level, through `mod.ts serve` on raw stdio: the capability and the instructions only
 * with the flag; one `notifications/claude/channel` {content, meta} when a run ends while no call
 * waits for it; none for a run whose end a call returned. (Claude Code 2.1.332 cannot deliver
 * channels offline: ../shared/claude-code/README.md.)
 */

import assert from "assert";
import { agentItem, FixtureHome, thread } from "../../testing/fixture_home.ts";
import {
  INITIALIZED,
  initializeRequest,
  type RawMessage,
  RawStdioRelay,
  toolCall,
} from "../../testing/raw_relay.ts";

const CHANNEL = "notifications/claude/channel";

async function session(
  flags: string[],
  fn: (r: RawStdioRelay, f: FixtureHome, t: string) => Promise<void>,
) {
  const t = thread({
    scripts: [[{ barrier: "hold" }, { item: agentItem("a1", "Done: all green.") }, {
      end: "completed",
    }]],
  });
  const f = await FixtureHome.create({ threads: [t] });
  const relay = new RawStdioRelay(f.env, ["--allow-turn-start", ...flags]);
  relay.readStdout();
  try {
    await relay.write(initializeRequest(), INITIALIZED);
    await relay.until(() => relay.answers().has("init"), "initialize answered");
    await fn(relay, f, t.id);
  } finally {
    await relay.closeStdin();
    const { code } = await relay.exited();
    await f.dispose();
    assert.equal(code, 0, relay.stderr);
  }
}

function answer(relay: RawStdioRelay, id: string): Record<string, unknown> {
  const m = relay.answers().get(id)![0];
  return m.result as Record<string, unknown>;
}

const channels = (relay: RawStdioRelay) => relay.messages.filter((m) => m.method === CHANNEL);

async function call(relay: RawStdioRelay, id: string, name: string, args: unknown) {
  await relay.write(toolCall(id, name, args));
  await relay.until(() => relay.answers().has(id), `${name} answered`, 60_000);
  return (answer(relay, id).structuredContent ?? {}) as Record<string, RawMessage>;
}

Deno.test("channels: declared and explained only with --channels", async () => {
  for (const flags of [[], ["--channels"]]) {
    await session(flags, (relay) => {
      const init = answer(relay, "init");
      const caps = init.capabilities as { experimental?: Record<string, unknown> };
      const on = flags.length > 0;
      assert.equal(caps.experimental?.["claude/channel"] !== undefined, on);
      assert.equal(String(init.instructions).includes("<channel"), on);
      return Promise.resolve();
    });
  }
});

Deno.test("channels: a run that ends while no call waits is pushed once, with its meta", async () => {
  await session(["--channels"], async (relay, f, t) => {
    const hold = await f.barrier("hold");
    const run = await call(relay, "run", "codex_run", { threadId: t, text: "go", waitSeconds: 1 });
    assert.equal(run.turn.status, "running");
    await hold.reached();
    await hold.release();
    await relay.until(() => channels(relay).length > 0, "the channel message", 30_000);
    const [pushed] = channels(relay);
    const params = pushed.params as { content: string; meta: Record<string, string> };
    assert.deepEqual(params.meta, {
      thread_id: t,
      client_message_id: String(run.receipt.clientMessageId),
      status: "completed",
    });
    assert.match(params.content, /^Codex run ended: completed/);
    assert.match(params.content, /Done: all green\./);
    // Once: reading it afterwards sends nothing more.
    const read = await call(relay, "read", "codex_wait_reply", {
      threadId: t,
      clientMessageId: run.receipt.clientMessageId,
      timeoutSeconds: 5,
    });
    assert.equal(read.timedOut, false as unknown as RawMessage);
    assert.equal(channels(relay).length, 1);
  });
});

Deno.test("channels: a run whose end a waiting call returned is never pushed", async () => {
  await session(["--channels"], async (relay, f, t) => {
    const hold = await f.barrier("hold");
    const run = await call(relay, "run", "codex_run", { threadId: t, text: "go", waitSeconds: 1 });
    await hold.reached();
    await relay.write(toolCall("wait", "codex_wait_reply", {
      threadId: t,
      clientMessageId: run.receipt.clientMessageId,
      timeoutSeconds: 30,
    }));
    await hold.release();
    await relay.until(() => relay.answers().has("wait"), "the wait's answer", 30_000);
    const waited = answer(relay, "wait").structuredContent as Record<string, unknown>;
    assert.equal(waited.timedOut, false);
    // A later round trip: anything pushed at the run's end was written before its answer.
    await call(relay, "list", "codex_list_threads", {});
    assert.equal(channels(relay).length, 0);
  });
});
