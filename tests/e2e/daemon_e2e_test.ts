/**
 * End-to-end tests of `serve --app-server daemon` against a real app-server
 * daemon (`codex app-server daemon start` in a temp CODEX_HOME, offline with
 * the Responses mock), driven by the MCP SDK client through the real entry
 * point and permission set. The daemon is stopped and every process it left
 * (the `pid-update-loop`) is reaped by pid when a test ends.
 *
 * Run against another Codex with `CODEX_BIN=/path/to/codex`. With
 * `CODEX_RELAY_DAEMON_BENCH=1` the first test also prints one interleaved
 * measurement: a relay `tools/call` vs a raw WebSocket client doing the same
 * RPCs over its own open connection.
 */

import assert from "node:assert/strict";
import { AppServer } from "../../testing/app_server_client.ts";
import { codexForTests } from "../../testing/codex_bin.ts";
import type { CodexHome } from "../../testing/codex_home.ts";
import { processesTagged } from "../../testing/process_table.ts";
import { type MockResponses, noEchoAnswer } from "../../testing/mock_responses.ts";
import { withMockHome } from "../../testing/mock_home.ts";
import { DaemonClient, startDaemon, stopDaemon } from "./daemon_home.ts";
import { startRelay } from "../../testing/relay.ts";
import type { ConnectedClient } from "../../testing/mcp_client.ts";
import { callTool, type ToolName, type ToolOutput } from "../../testing/call_tool.ts";

const BIN = codexForTests("tests/e2e/daemon_e2e_test.ts");
const ignore = BIN === null;
type Rec = Record<string, unknown>;

interface World {
  home: CodexHome;
  env: Record<string, string>;
  mock: MockResponses;
}

async function withDaemonWorld(
  opts: { daemon: boolean },
  fn: (w: World, track: (c: { close(): Promise<unknown> }) => void) => Promise<void>,
): Promise<void> {
  let killed: string[] = [];
  await withMockHome({ bin: BIN!.path }, async ({ mock, home, env }) => {
    const closers: { close(): Promise<unknown> }[] = [];
    try {
      if (opts.daemon) await startDaemon(BIN!.path, home);
      await fn({ home, env, mock }, (c) => closers.push(c));
    } finally {
      for (const c of closers.reverse()) await c.close().catch(() => {});
      if (opts.daemon) killed = await stopDaemon(BIN!.path, home);
    }
  });
  if (opts.daemon) {
    // What `daemon stop` left and the test had to end (a Codex quirk, reaped by pid).
    assert.ok(killed.every((k) => /pid-update-loop|app-server/.test(k)), killed.join("; "));
  }
}

async function call<N extends ToolName>(
  c: ConnectedClient,
  name: N,
  args: Rec,
): Promise<ToolOutput<N>> {
  const result = await callTool(c.client, name, args);
  assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

/** Live proxies, counted by process group (a launcher's processes count once). */
async function proxies(root: string): Promise<number> {
  const rows = (await processesTagged(root)).filter((p) => / app-server proxy/.test(p.cmdline));
  return new Set(rows.map((p) => p.pgid)).size;
}

async function seedThreads(home: CodexHome, n: number): Promise<string[]> {
  const d = await AppServer.start(home, { bin: BIN!.path });
  try {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const thread = await d.startThread({ cwd: home.workspace });
      const run = await d.runTurn(thread.id, `seed question ${i}`, {
        clientUserMessageId: crypto.randomUUID(),
      });
      assert.equal(run.turn.status, "completed");
      ids.push(thread.id);
    }
    return ids;
  } finally {
    await d.close();
  }
}

Deno.test({
  name: "e2e daemon: list, queue, read and wait through --app-server daemon on one connection",
  ignore,
  fn: () =>
    withDaemonWorld({ daemon: true }, async (w, track) => {
      const [hot, cold] = await seedThreads(w.home, 2);
      const relay = await startRelay({
        env: w.env,
        flags: ["--app-server", "daemon", "--allow-reply-read", "--log-level", "debug"],
        protocol: "2026-07-28",
      });
      track(relay);
      const { tools } = await relay.client.listTools();
      assert.ok(tools.some((t) => t.name === "codex_wait_reply"));
      assert.equal(await proxies(w.home.root), 0, "start, initialize and tools/list open nothing");

      const listed = await call(relay, "codex_list_threads", {});
      assert.equal(listed.status, "ok");
      const ids = (listed.threads as Rec[]).map((t) => t.id);
      assert.deepEqual(new Set(ids), new Set([hot, cold]));

      const receipt = await call(relay, "codex_queue_message", {
        threadId: hot,
        text: "daemon question NOECHO",
      });
      assert.equal(receipt.status, "queued", JSON.stringify(receipt));
      assert.equal(receipt.confirmedBy, "acknowledgement");

      // The user's own Codex loads the thread in the daemon; the queued message then runs there.
      const user = await DaemonClient.connect(BIN!.path, w.home);
      track(user);
      await user.request("thread/resume", { threadId: hot, excludeTurns: true });
      await user.request("thread/queue/start", { threadId: hot }).catch((e) => {
        // Already started by the resume.
        assert.match(String(e), /active or pending turn|queue is empty/);
      });
      const waited = await call(relay, "codex_wait_reply", {
        threadId: hot,
        clientMessageId: receipt.clientMessageId,
        timeoutSeconds: 30,
      });
      assert.equal(waited.status, "observed", JSON.stringify(waited));
      const replies = waited.replies as { text: string }[];
      const seq = w.mock.requests.find((r) => r.userText === "daemon question NOECHO")!.seq;
      assert.deepEqual(replies.map((r) => r.text), [noEchoAnswer(seq)]);
      const read = await call(relay, "codex_read_reply", {
        threadId: hot,
        clientMessageId: receipt.clientMessageId,
      });
      assert.equal(read.status, "observed");
      assert.deepEqual((read.replies as { text: string }[]).map((r) => r.text), [
        noEchoAnswer(seq),
      ]);
      assert.equal(await proxies(w.home.root), 2, "one proxy for the relay, one for the user");

      if (Deno.env.get("CODEX_RELAY_DAEMON_BENCH") === "1") {
        await bench(relay, user, cold, hot, String(receipt.clientMessageId));
      }
    }),
});

Deno.test({
  name:
    "e2e daemon: with no daemon running, tools answer daemon_unavailable saying how to start it",
  ignore,
  fn: () =>
    withDaemonWorld({ daemon: false }, async (w, track) => {
      const relay = await startRelay({
        env: w.env,
        flags: ["--app-server", "daemon"],
        protocol: "2026-07-28",
      });
      track(relay);
      const listed = await call(relay, "codex_list_threads", {});
      assert.equal(listed.reason, "daemon_unavailable", JSON.stringify(listed));
      assert.match(String(listed.message), /codex app-server daemon start/);
      const queued = await call(relay, "codex_queue_message", {
        threadId: crypto.randomUUID(),
        text: "hi",
      });
      assert.equal(queued.status, "not_sent");
      assert.equal(queued.reason, "daemon_unavailable");
    }),
});

Deno.test({
  name:
    "e2e daemon: a daemon stopped under the relay fails the next call; once restarted, the relay reconnects",
  ignore,
  fn: () =>
    withDaemonWorld({ daemon: true }, async (w, track) => {
      const [id] = await seedThreads(w.home, 1);
      const relay = await startRelay({
        env: w.env,
        flags: ["--app-server", "daemon"],
        protocol: "2026-07-28",
      });
      track(relay);
      assert.equal((await call(relay, "codex_list_threads", {})).status, "ok");
      await stopDaemon(BIN!.path, w.home);
      const down = await call(relay, "codex_list_threads", {});
      assert.ok(
        down.reason === "connection_lost" || down.reason === "daemon_unavailable",
        JSON.stringify(down),
      );
      const again = await call(relay, "codex_list_threads", {});
      assert.equal(again.reason, "daemon_unavailable", JSON.stringify(again));
      await startDaemon(BIN!.path, w.home);
      const up = await call(relay, "codex_list_threads", {});
      assert.equal(up.status, "ok", JSON.stringify(up));
      assert.deepEqual((up.threads as Rec[]).map((t) => t.id), [id]);
    }),
});

// ---------------------------------------------------------------------------------------------
// One interleaved measurement (CODEX_RELAY_DAEMON_BENCH=1)
// ---------------------------------------------------------------------------------------------

async function bench(
  relay: ConnectedClient,
  user: DaemonClient,
  cold: string,
  hot: string,
  clientMessageId: string,
): Promise<void> {
  const rounds = 25;
  const cases: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
    [
      "list",
      () => call(relay, "codex_list_threads", {}),
      () => user.request("thread/list", { limit: 25 }),
    ],
    [
      "queue",
      () => call(relay, "codex_queue_message", { threadId: cold, text: "bench NOECHO" }),
      () =>
        user.request("thread/queue/add", {
          threadId: cold,
          clientUserMessageId: crypto.randomUUID(),
          input: [{ type: "text", text: "bench NOECHO", text_elements: [] }],
        }),
    ],
    [
      "read",
      () => call(relay, "codex_read_reply", { threadId: hot, clientMessageId }),
      async () => {
        // The read's RPCs: the turns page, then the turn's items.
        const turns = await user.request("thread/turns/list", {
          threadId: hot,
          limit: 10,
          itemsView: "notLoaded",
        }) as { data: { id: string }[] };
        await user.request("thread/items/list", { threadId: hot, turnId: turns.data[0].id });
      },
    ],
  ];
  const lines: string[] = [];
  for (const [name, viaRelay, raw] of cases) {
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < rounds; i++) {
      let t = performance.now();
      await viaRelay();
      a.push(performance.now() - t);
      t = performance.now();
      await raw();
      b.push(performance.now() - t);
    }
    const ma = median(a);
    const mb = median(b);
    lines.push(
      `${name}: relay tools/call median ${ma.toFixed(2)} ms, raw client ${mb.toFixed(2)} ms, ` +
        `ratio ${(ma / mb).toFixed(1)}, relay's share ${(ma - mb).toFixed(2)} ms`,
    );
  }
  // deno-lint-ignore no-console
  console.error(`daemon bench (${rounds} interleaved rounds):\n  ${lines.join("\n  ")}`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
}
