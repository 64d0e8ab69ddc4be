/**
 * Issue 39, item 4: an MCP server not up at a run's start is not waited for
 * again (src/turn/mcp_memory.ts) until MCP_SKIP_MS passed or its config entry
 * changed; a server seen ready is forgotten. On a manual clock.
 */

import assert from "node:assert/strict";
import { MCP_KNOWN_MAX, MCP_SKIP_MS, McpMemory, skipText } from "../../src/turn/mcp_memory.ts";
import { McpStartup, serversToStart, STARTUP_STATUS } from "../../src/turn/mcp_startup.ts";
import { afterLoadWait, watchMcpStartup } from "../../src/turn/mcp_wait.ts";
import { ManualClock } from "../../testing/manual_clock.ts";

const T = "01a2356c-c9fd-7673-9728-e201a963ae2f";
const CONFIG = { mcp_servers: { a: { command: "a-mcp" }, b: { command: "b-mcp" } } };

Deno.test("serversToStart() keys each server by the config's scope, its name and its entry", () => {
  const [a, b] = serversToStart(CONFIG, {}, "/repo");
  assert.notEqual(a.key, b.key);
  assert.equal(serversToStart(CONFIG, {}, "/repo")[0].key, a.key, "the same config: the same key");
  assert.notEqual(serversToStart(CONFIG, {}, "/other")[0].key, a.key, "another cwd");
  const changed = { mcp_servers: { ...CONFIG.mcp_servers, a: { command: "a-mcp", args: ["-v"] } } };
  assert.notEqual(serversToStart(changed, {}, "/repo")[0].key, a.key, "a changed entry");
  assert.equal(serversToStart(CONFIG, {})[0].key, undefined, "no scope, no key");
});

Deno.test("McpMemory: a server failed or not ready is skipped for MCP_SKIP_MS; a ready one, a cancelled one or a changed entry is waited for", () => {
  const clock = new ManualClock();
  const memory = new McpMemory(clock);
  const servers = serversToStart(CONFIG, {}, "/repo");
  assert.deepEqual(memory.plan(servers), servers, "nothing known: every server waited for");
  memory.learn(servers, [
    { name: "a", status: "failed", error: "exit 1" },
    { name: "b", status: "cancelled", error: null },
  ]);
  clock.advance(42_000);
  const [a, b] = memory.plan(servers);
  assert.equal(
    a.skip,
    "not waited for: not up at a start 42 s ago in this relay process (failed: exit 1); waited for again 5 min after that or once its config entry changes",
  );
  assert.equal(b.skip, undefined, "a cancelled start teaches nothing");
  const changed = { mcp_servers: { ...CONFIG.mcp_servers, a: { command: "fixed-mcp" } } };
  assert.equal(memory.plan(serversToStart(changed, {}, "/repo"))[0].skip, undefined);
  // A skipped server's own later failure does not extend its time.
  memory.learn(memory.plan(servers), [{ name: "a", status: "failed", error: "exit 1" }]);
  clock.advance(MCP_SKIP_MS - 42_001);
  assert.ok(memory.plan(servers)[0].skip);
  clock.advance(1);
  assert.equal(memory.plan(servers)[0].skip, undefined, "waited for again after MCP_SKIP_MS");
  memory.learn(servers, [{ name: "a", status: "starting", error: "not ready" }]);
  assert.ok(memory.plan(servers)[0].skip, "not ready within the wait counts too");
  memory.learn(memory.plan(servers), []);
  assert.equal(memory.plan(servers)[0].skip, undefined, "seen ready: forgotten at once");
});

Deno.test("McpMemory keeps at most MCP_KNOWN_MAX servers, forgetting the oldest", () => {
  const memory = new McpMemory(new ManualClock());
  const many = Array.from({ length: MCP_KNOWN_MAX + 1 }, (_, i) => ({
    name: `s${i}`,
    timeoutMs: 1000,
    key: `k${i}`,
  }));
  memory.learn(many, many.map((s) => ({ name: s.name, status: "failed" as const, error: null })));
  const planned = memory.plan(many);
  assert.equal(planned[0].skip, undefined, "the oldest forgotten");
  assert.equal(planned.filter((s) => s.skip).length, MCP_KNOWN_MAX);
});

Deno.test("McpStartup does not wait for a skipped server and names it with why; its status, if it comes, wins", () => {
  const skip = skipText({ at: 0, status: "failed", error: "exit 1" }, 1000);
  const start = new McpStartup(T, [{ name: "a", timeoutMs: 30_000, skip }], 0);
  assert.equal(start.waitUntil(0, 20_000), undefined, "nothing to wait for");
  assert.deepEqual(start.missing(), [{ name: "a", status: "starting", error: skip }]);
  start.note(STARTUP_STATUS, { threadId: T, name: "a", status: "failed", error: "exit 2" });
  assert.deepEqual(start.missing(), [{ name: "a", status: "failed", error: "exit 2" }]);
});

Deno.test("afterLoadWait() with a memory: the second start does not wait for the server the first waited for in vain", async () => {
  const clock = new ManualClock();
  const memory = new McpMemory(clock);
  const watchers = new Set<(m: string, p: unknown) => void>();
  const conn = {
    watch: (
      fn: (m: string, p: unknown) => void,
    ) => (watchers.add(fn), () => void watchers.delete(fn)),
  };
  const servers = [{ name: "mute", timeoutMs: 3_000, key: "k" }];
  const session = { remainingMs: () => 15_000, signal: new AbortController().signal };
  const first = afterLoadWait(watchMcpStartup(conn, clock), T, servers, session, () => {}, memory);
  await Promise.resolve();
  clock.advance(3_000);
  assert.deepEqual((await first).map((m) => m.status), ["starting"]);
  const notes: string[] = [];
  const second = await afterLoadWait(
    watchMcpStartup(conn, clock),
    T,
    servers,
    session,
    (n) => notes.push(n),
    memory,
  );
  assert.match(second[0].error ?? "", /^not waited for: not up at a start 0 s ago/);
  assert.match(notes[0], /MCP server mute \(starting: not waited for/);
  // A wait the call cancelled teaches nothing.
  const other = [{ name: "slow", timeoutMs: 3_000, key: "s" }];
  const abort = new AbortController();
  const cancelled = afterLoadWait(
    watchMcpStartup(conn, clock),
    T,
    other,
    { ...session, signal: abort.signal },
    () => {},
    memory,
  );
  abort.abort();
  await cancelled;
  assert.equal(memory.plan(other)[0].skip, undefined);
});
