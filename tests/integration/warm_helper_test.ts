/**
 * The spawn backend's warm helper (src/connect/spawn/warm_helper.ts) against
 * the fixture app-server: reuse, the idle end, and a helper killed or hung
 * while several operations are in flight on it.
 */

import assert from "assert";
import { ManualClock } from "../../testing/manual_clock.ts";
import { SpawnConnection, type SpawnOptions } from "../../src/connect/spawn/spawn_connection.ts";
import type { Method } from "../../src/codex/methods.ts";
import type { RelayError } from "../../src/core/errors.ts";
import { type FixtureHome, rejection, thread, withFixture } from "../../testing/fixture_home.ts";
import type { Scenario } from "../../fixtures/scenario.ts";
import { WARM_IDLE_MS } from "../../src/connect/spawn/warm_helper.ts";

const METHODS = new Set<Method>([
  "thread/list",
  "thread/queue/list",
  "thread/queue/add",
  "thread/resume",
  "thread/start",
  "thread/queue/start",
]);

/** A spawn backend on `f`'s fixture, given to `fn` and shut down after it. */
function withConnection(
  scenario: Scenario,
  fn: (f: FixtureHome, connection: SpawnConnection) => Promise<void>,
  over: Partial<SpawnOptions> = {},
): Promise<void> {
  return withFixture(scenario, async (f) => {
    const connection = new SpawnConnection({
      allowlist: METHODS,
      version: "0.0.0-test",
      env: f.env,
      reap: { eofGraceMs: 300, termGraceMs: 300 },
      ...over,
    });
    try {
      await fn(f, connection);
    } finally {
      await connection.shutdown();
    }
  });
}

const list = (connection: SpawnConnection) =>
  connection.operation((s) => s.call("thread/list", { limit: 5 }));

/** The pid each request of `method` reached. */
async function pidsOf(f: FixtureHome, method: string): Promise<number[]> {
  return (await f.requests()).filter((r) => r.method === method).map((r) => r.pid);
}

Deno.test("warm helper: later operations reuse the first one's helper, and concurrent ones share its connection", async () => {
  const t = thread();
  await withConnection({
    threads: [t],
    faults: [
      { method: "thread/list", once: "a", barrier: "a" },
      { method: "thread/queue/list", once: "b", barrier: "b" },
    ],
  }, async (f, connection) => {
    const a = await f.barrier("a");
    const b = await f.barrier("b");
    const first = list(connection);
    await a.reached();
    const second = connection.operation((s) => s.call("thread/queue/list", { threadId: t.id }));
    await b.reached(); // Both are in flight at once, on one connection.
    await b.release();
    await a.release();
    await Promise.all([first, second]);
    await list(connection);
    await list(connection);
    const [pid, ...more] = await f.spawned();
    assert.deepEqual(more, [], "one helper for four operations");
    assert.deepEqual(await pidsOf(f, "initialize"), [pid], "initialized once");
    assert.deepEqual(await pidsOf(f, "thread/list"), [pid, pid, pid]);
    assert.deepEqual(await pidsOf(f, "thread/queue/list"), [pid]);
    assert.equal(connection.stats.alive, 1);
    assert.equal(connection.stats.peak, 2, "two operations were in flight at once");
  });
});

Deno.test("warm helper: reaped after 30 s with no operation; an operation meanwhile restarts the idle time", async () => {
  await withConnection({ threads: [thread()] }, async (f, connection) => {
    const clock = connection.clock as ManualClock;
    assert.equal(WARM_IDLE_MS, 30_000);
    await list(connection);
    clock.advance(29_999);
    await list(connection); // Still warm; the idle time starts again when it ends.
    clock.advance(29_999);
    await list(connection);
    assert.equal((await f.spawned()).length, 1, "reused within the idle time");
    clock.advance(30_000);
    await list(connection); // The idle helper was reaped: a new one starts.
    const [first, second] = await f.spawned();
    assert.notEqual(second, undefined, "a second helper was spawned");
    const eofs = (await f.log()).filter((e) => e.event === "eof").map((e) => e.pid);
    assert.deepEqual(eofs, [first], "the idle helper's stdin was closed; the new one's is open");
    assert.equal(f.helperOf(first), undefined, "the idle helper is gone");
  }, { clock: new ManualClock() });
});

Deno.test("warm helper: killed under concurrent operations, those in flight fail written, a waiting one runs on the next helper", async () => {
  const t = thread();
  await withConnection({
    threads: [t],
    faults: [
      { method: "thread/list", once: "a", barrier: "a" },
      { method: "thread/queue/list", once: "b", barrier: "b" },
    ],
  }, async (f, connection) => {
    const a = await f.barrier("a");
    const b = await f.barrier("b");
    const first = rejection(list(connection));
    const second = rejection(
      connection.operation((s) => s.call("thread/queue/list", { threadId: t.id })),
    );
    await a.reached();
    await b.reached();
    const third = list(connection); // Waits for a slot: nothing of it is written yet.
    assert.equal(connection.stats.waiting, 1);
    const [pid] = await f.spawned();
    Deno.kill(pid, "SIGKILL");
    for (const error of await Promise.all([first, second])) {
      assert.equal(error.reason, "protocol_error");
      assert.equal(error.written, true, "its request had been written");
    }
    const result = await third;
    assert.deepEqual(result.data.map((x) => x.id), [t.id]);
    const [, next] = await f.spawned();
    assert.deepEqual(
      await pidsOf(f, "thread/list"),
      [pid, next],
      "the waiting one ran on a new helper",
    );
    await list(connection);
    assert.equal((await f.spawned()).length, 2, "the new helper stays warm");
  }, { limits: { inFlight: 2 } });
});

Deno.test("warm helper: hung under concurrent operations, it is replaced after one RPC timeout; the others in flight fail connection_lost", async () => {
  const t = thread();
  const clock = new ManualClock();
  await withConnection({
    threads: [t],
    faults: [
      { method: "thread/list", once: "a", barrier: "a", action: { never: true } },
      { method: "thread/queue/list", once: "b", barrier: "b", action: { never: true } },
    ],
  }, async (f, connection) => {
    const a = await f.barrier("a");
    const b = await f.barrier("b");
    const first = rejection(list(connection));
    await a.reached();
    await a.release();
    clock.advance(6_000);
    const second = rejection(
      connection.operation((s) => s.call("thread/queue/list", { threadId: t.id })),
    );
    await b.reached();
    await b.release();
    clock.advance(6_000); // 12 s for the first RPC, 6 s for the second.
    const hung: RelayError = await first;
    assert.equal(hung.reason, "timeout");
    assert.equal(hung.written, true);
    const other = await second;
    assert.equal(other.reason, "connection_lost");
    assert.equal(other.written, true, "its request had been written");
    assert.match(other.message, /replaced/);
    const [pid] = await f.spawned();
    assert.equal(f.helperOf(pid), undefined, "the hung helper was reaped");
    const result = await list(connection);
    assert.deepEqual(result.data.map((x) => x.id), [t.id]);
    assert.equal((await f.spawned()).length, 2, "the next operation spawned a new helper");
  }, { clock });
});

Deno.test("warm helper: methods that load a thread are refused before anything starts (a queued message stays stored)", async () => {
  await withConnection({ threads: [thread()] }, async (f, connection) => {
    const calls = [
      connection.operation((s) => s.call("thread/resume", { threadId: "x" })),
      connection.operation((s) => s.call("thread/start", { cwd: "/workspace" })),
      connection.operation((s) => s.call("thread/queue/start", { threadId: "x" })),
    ];
    for (const error of await Promise.all(calls.map(rejection))) {
      assert.equal(error.reason, "not_allowed");
      assert.equal(error.written, false);
    }
    assert.deepEqual(await f.spawned(), [], "nothing was started");
  });
});
