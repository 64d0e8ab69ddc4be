/**
 * `openConnection()`: a backend's code loads at its first operation or hold, and until then the
 * connection answers what the backend declares (issue 47: a start like a bare MCP server).
 * @module
 */

import assert from "assert";
import { openConnection, type OpenOptions } from "../../src/connect/open.ts";
import { SpawnConnection } from "../../src/connect/spawn/spawn_connection.ts";
import { DaemonConnection } from "../../src/connect/daemon/daemon_connection.ts";
import { RelayError } from "../../src/core/errors.ts";
import type { Method } from "../../src/codex/methods.ts";

const OPTIONS: OpenOptions = {
  allowlist: new Set<Method>(["thread/list"]),
  version: "0.0.0-test",
  env: {},
  // A codex that is not there: an operation fails once the backend runs it.
  command: "/nonexistent/codex-relay-test/codex",
  limits: { rpcTimeoutMs: 2_000, queue: 3 },
};

const reasonOf = (error: unknown) => error instanceof RelayError ? error.reason : String(error);

Deno.test("openConnection() declares the capabilities and bounds its backend has, before loading it", async () => {
  const spawn = await openConnection({ kind: "spawn" }, OPTIONS);
  const daemon = await openConnection({ kind: "daemon" }, OPTIONS);
  const spawnBackend = new SpawnConnection(OPTIONS);
  const daemonBackend = new DaemonConnection({ ...OPTIONS, target: { kind: "daemon" } });
  assert.deepEqual(spawn.capabilities, spawnBackend.capabilities);
  assert.deepEqual(daemon.capabilities, daemonBackend.capabilities);
  assert.deepEqual(spawn.limits, spawnBackend.limits);
  assert.deepEqual(daemon.limits, daemonBackend.limits);
  assert.equal(spawn.limits.rpcTimeoutMs, 2_000, "a lower bound is kept");
  assert.deepEqual(spawn.stats, { alive: 0, peak: 0, spawned: 0, waiting: 0, held: 0 });
  assert.equal(spawn.initializeResult, undefined);
  for (const c of [spawn, daemon, spawnBackend, daemonBackend]) await c.shutdown();
});

Deno.test("openConnection()'s first operation loads the backend, which runs it", async () => {
  const connection = await openConnection({ kind: "spawn" }, OPTIONS);
  const failed = await connection.operation((s) => s.call("thread/list", {})).then(
    () => "answered",
    reasonOf,
  );
  assert.equal(failed, "codex_missing", "the spawn backend tried to start the missing codex");
  const held = await connection.hold().then(() => "held", reasonOf);
  assert.equal(held, "codex_missing");
  assert.equal(connection.stats.alive, 0);
  await connection.shutdown();
  assert.equal(await connection.kill(), 0);
});

Deno.test("a connection shut down before its first call loads nothing and refuses calls", async () => {
  const connection = await openConnection({ kind: "spawn" }, OPTIONS);
  await connection.shutdown();
  assert.equal(await connection.kill(), 0);
  const after = await connection.operation((s) => s.call("thread/list", {})).then(
    () => "answered",
    reasonOf,
  );
  assert.equal(after, "cancelled");
  assert.equal(await connection.hold().then(() => "held", reasonOf), "cancelled");
});

Deno.test("a shutdown while the backend loads ends the call that loads it and leaves nothing running", async () => {
  const connection = await openConnection({ kind: "spawn" }, OPTIONS);
  const call = connection.operation((s) => s.call("thread/list", {})).then(
    () => "answered",
    reasonOf,
  );
  await connection.shutdown();
  // Begun before the shutdown, the call ran on the backend: its RPC was cancelled, or the
  // missing codex failed it first. Either way it ended, and no process is left.
  assert.ok(["cancelled", "codex_missing"].includes(await call), await call);
  assert.equal(connection.stats.alive, 0);
  assert.equal(await connection.kill(), 0);
});
