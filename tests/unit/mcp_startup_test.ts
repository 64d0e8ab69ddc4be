/**
 * Issue 31, item 1: which of a thread's MCP servers a turn's start still
 * waits for (src/turn/mcp_startup.ts, pure) and the wait on an injected clock
 * (src/turn/mcp_wait.ts). Statuses as Codex 0.169 sends them (transcripts 25).
 */

import assert from "node:assert/strict";
import {
  CODEX_STARTUP_TIMEOUT_SEC,
  McpStartup,
  missingText,
  serversToStart,
  STARTUP_STATUS,
} from "../../src/turn/mcp_startup.ts";
import { afterLoadWait, watchMcpStartup } from "../../src/turn/mcp_wait.ts";
import { ManualClock } from "../../testing/manual_clock.ts";

const T = "01a2356c-c9fd-7673-9728-e201a963ae2f";

function status(name: string, s: string, error: string | null = null, threadId = T) {
  return { threadId, name, status: s, error, failureReason: null };
}

Deno.test("serversToStart() lists the enabled servers with their startup_timeout_sec or Codex's default", () => {
  const config = {
    mcp_servers: {
      docs: { command: "npx", startup_timeout_sec: 3 },
      plain: { command: "deno" },
      off: { command: "x", enabled: false },
      guarded: { command: "codex-relay" },
      odd: "not an entry",
      zero: { command: "z", startup_timeout_sec: 0 },
    },
  };
  assert.deepEqual(serversToStart(config, { "mcp_servers.guarded.enabled": false }), [
    { name: "docs", timeoutMs: 3_000 },
    { name: "plain", timeoutMs: CODEX_STARTUP_TIMEOUT_SEC * 1000 },
    { name: "zero", timeoutMs: CODEX_STARTUP_TIMEOUT_SEC * 1000 },
  ]);
  assert.equal(CODEX_STARTUP_TIMEOUT_SEC, 30);
  assert.deepEqual(serversToStart({}, {}), []);
  assert.deepEqual(serversToStart({ mcp_servers: null }, {}), []);
});

Deno.test("McpStartup waits for each server until its own deadline, within the budget", () => {
  const start = new McpStartup(T, [
    { name: "fast", timeoutMs: 2_000 },
    { name: "slow", timeoutMs: 8_000 },
  ], 100);
  assert.equal(start.waitUntil(100, 60_000), 8_100, "the last deadline of those still starting");
  assert.equal(start.waitUntil(100, 5_000), 5_000, "never past the budget");
  start.note(STARTUP_STATUS, status("slow", "starting"));
  assert.equal(start.waitUntil(100, 60_000), 8_100, "starting settles nothing");
  start.note(STARTUP_STATUS, status("slow", "ready"));
  assert.equal(start.waitUntil(100, 60_000), 2_100);
  assert.equal(start.waitUntil(2_100, 60_000), undefined, "fast's deadline passed");
  assert.equal(start.waitUntil(200, 200), undefined, "the budget is spent");
  assert.deepEqual(start.missing(), [{
    name: "fast",
    status: "starting",
    error: "not ready when the turn started (Codex gives it 2 s)",
  }]);
});

Deno.test("McpStartup takes only its thread's statuses of the startup method, the first settled one each", () => {
  const start = new McpStartup(T, [{ name: "a", timeoutMs: 1_000 }, {
    name: "b",
    timeoutMs: 1_000,
  }], 0);
  start.note("mcpServer/other", status("a", "ready"));
  start.note(STARTUP_STATUS, status("a", "ready", null, "another-thread"));
  start.note(STARTUP_STATUS, null);
  start.note(STARTUP_STATUS, { threadId: T, name: 5, status: "ready" });
  start.note(STARTUP_STATUS, status("a", "bogus"));
  assert.equal(start.waitUntil(0, 10_000), 1_000);
  start.note(STARTUP_STATUS, status("a", "failed", "MCP client for `a` failed to start: boom"));
  start.note(STARTUP_STATUS, status("a", "ready"));
  start.note(STARTUP_STATUS, status("b", "cancelled"));
  assert.equal(start.waitUntil(0, 10_000), undefined);
  assert.deepEqual(start.missing(), [
    { name: "a", status: "failed", error: "MCP client for `a` failed to start: boom" },
    { name: "b", status: "cancelled", error: null },
  ]);
});

Deno.test("missingText() names each server the turn runs without, or nothing", () => {
  assert.equal(missingText([]), "");
  assert.equal(
    missingText([{ name: "a", status: "failed", error: "boom" }]),
    "The turn runs without the tools of MCP server a (failed: boom)",
  );
  assert.equal(
    missingText([
      { name: "a", status: "cancelled", error: null },
      { name: "b", status: "starting", error: "late" },
    ]),
    "The turn runs without the tools of MCP servers a (cancelled), b (starting: late)",
  );
});

/** A connection whose notifications the test sends. */
function fakeConn() {
  const watchers = new Set<(method: string, params: unknown) => void>();
  return {
    watchers,
    send: (method: string, params: unknown) => [...watchers].forEach((w) => w(method, params)),
    watch(fn: (method: string, params: unknown) => void) {
      watchers.add(fn);
      return () => void watchers.delete(fn);
    },
  };
}

Deno.test("watchMcpStartup() keeps statuses sent before the thread is known, and ends its wait at the last status", async () => {
  const clock = new ManualClock();
  const conn = fakeConn();
  const watch = watchMcpStartup(conn, clock);
  conn.send(STARTUP_STATUS, status("a", "starting"));
  conn.send(STARTUP_STATUS, status("b", "failed", "boom"));
  let done = false;
  const settling = watch.settle(
    T,
    [{ name: "a", timeoutMs: 30_000 }, {
      name: "b",
      timeoutMs: 30_000,
    }],
    15_000,
    new AbortController().signal,
  ).then((m) => (done = true, m));
  await Promise.resolve();
  clock.advance(5_000);
  await Promise.resolve();
  assert.equal(done, false, "a is still starting");
  conn.send(STARTUP_STATUS, status("a", "ready"));
  assert.deepEqual(await settling, [{ name: "b", status: "failed", error: "boom" }]);
  assert.equal(conn.watchers.size, 0, "the watch stopped");
  assert.equal(clock.pending, 0, "no timer left");
});

Deno.test("watchMcpStartup() ends at the budget, and at once when aborted", async () => {
  const clock = new ManualClock();
  const conn = fakeConn();
  const servers = [{ name: "a", timeoutMs: 30_000 }];
  const timed = watchMcpStartup(conn, clock).settle(
    T,
    servers,
    12_000,
    new AbortController().signal,
  );
  await Promise.resolve();
  clock.advance(11_999);
  clock.advance(1);
  assert.deepEqual((await timed).map((m) => m.status), ["starting"]);

  const abort = new AbortController();
  const aborted = watchMcpStartup(conn, clock).settle(T, servers, 12_000, abort.signal);
  await Promise.resolve();
  abort.abort();
  assert.deepEqual((await aborted).map((m) => m.name), ["a"]);
  assert.equal(conn.watchers.size, 0);
  assert.equal(clock.pending, 0);
});

Deno.test("watchMcpStartup() waits for nothing on a connection that cannot watch, or with no servers", async () => {
  const clock = new ManualClock();
  const blind = watchMcpStartup({}, clock);
  assert.deepEqual(
    await blind.settle(T, [{ name: "a", timeoutMs: 1 }], 10_000, new AbortController().signal),
    [],
  );
  const conn = fakeConn();
  const none = watchMcpStartup(conn, clock);
  assert.deepEqual(await none.settle(T, [], 10_000, new AbortController().signal), []);
  assert.equal(conn.watchers.size, 0);
});

Deno.test("afterLoadWait() keeps the start's reserve for queueing and notes the missing servers", async () => {
  const clock = new ManualClock();
  const conn = fakeConn();
  const notes: string[] = [];
  const waiting = afterLoadWait(
    watchMcpStartup(conn, clock),
    T,
    [{ name: "a", timeoutMs: 30_000 }],
    { remainingMs: () => 15_000, signal: new AbortController().signal },
    (n) => notes.push(n),
  );
  await Promise.resolve();
  clock.advance(9_999);
  assert.equal(notes.length, 0);
  clock.advance(1); // 15 s less the 5 s reserve
  assert.deepEqual((await waiting).map((m) => m.name), ["a"]);
  assert.deepEqual(notes, [
    "The turn runs without the tools of MCP server a (starting: not ready when the turn started (Codex gives it 30 s))",
  ]);
});
