import assert from "assert";
import { rejection } from "../../testing/fixture_home.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { DaemonConnection } from "../../src/connect/daemon/daemon_connection.ts";
import { FakeDaemon } from "../../testing/fake_daemon.ts";
import type { Method } from "../../src/codex/methods.ts";

function daemon(fake: FakeDaemon, inFlight: number, queue: number, clock = new ManualClock()) {
  return new DaemonConnection({
    allowlist: new Set<Method>(["thread/list"]),
    version: "0.0.0-test",
    limits: { inFlight, queue },
    clock,
    dial: fake.dial,
  });
}

/** Lets queued microtasks run until `cond` holds (fails if it never does). */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await Promise.resolve();
  assert.ok(cond(), "condition not reached");
}

const list = (d: DaemonConnection) => d.operation((s) => s.call("thread/list", {}));

Deno.test("daemon bounds: the default is 16 operations in flight and a queue of 64", () => {
  const d = new DaemonConnection({
    allowlist: new Set(),
    version: "0",
    dial: new FakeDaemon().dial,
  });
  assert.equal(d.limits.inFlight, 16);
  assert.equal(d.limits.queue, 64);
  assert.equal(d.stats.spawned, 0, "constructing dials nothing");
});

Deno.test("daemon bounds: at the in-flight bound every operation is sent; one past waits unsent", async () => {
  const fake = new FakeDaemon();
  const d = daemon(fake, 3, 2);
  const ops = [list(d), list(d), list(d)];
  await fake.heldCount(3);
  assert.equal(d.stats.waiting, 0);
  const fourth = list(d);
  await until(() => d.stats.waiting === 1);
  assert.equal(fake.held.length, 3, "the fourth is not sent while three are in flight");
  fake.releaseAll();
  await Promise.all(ops);
  await fake.heldCount(1);
  fake.releaseAll();
  assert.deepEqual(await fourth, { data: [], nextCursor: null });
  assert.equal(d.stats.peak, 3);
  assert.equal(fake.dials, 1, "all on one connection");
  await d.shutdown();
});

Deno.test("daemon bounds: at the queue bound the call waits; one past fails busy, not written", async () => {
  const fake = new FakeDaemon();
  const d = daemon(fake, 1, 2);
  const first = list(d);
  await fake.heldCount(1);
  const queued = [list(d), list(d)];
  await until(() => d.stats.waiting === 2);
  const e = await rejection(list(d));
  assert.equal(e.reason, "busy");
  assert.equal(e.written, false);
  assert.match(e.message, /operation slots/);
  for (let i = 0; i < 3; i++) {
    await fake.heldCount(1);
    fake.releaseAll();
  }
  await Promise.all([first, ...queued]);
  await d.shutdown();
});

Deno.test("daemon bounds: a queued operation whose budget runs out fails busy and was never sent", async () => {
  const fake = new FakeDaemon();
  const clock = new ManualClock();
  const d = daemon(fake, 1, 4, clock);
  const first = list(d);
  await fake.heldCount(1);
  const waiting = rejection(list(d));
  await until(() => d.stats.waiting === 1);
  clock.advance(d.limits.operationMs);
  const e = await waiting;
  assert.equal(e.reason, "busy");
  assert.equal(
    e.message,
    "No operation slot on the app-server daemon became free within the operation budget",
  );
  assert.equal(e.written, false);
  assert.equal(fake.held.length, 1);
  fake.releaseAll();
  await first.catch(() => {}); // Its own budget ran out with the same clock.
  await d.shutdown();
});
