import assert from "assert";
import {
  FRESH_MS,
  HEARTBEAT_MS,
  Liveness,
  PONG_TIMEOUT_MS,
} from "../../src/connect/daemon/liveness.ts";
import { ManualClock } from "../../testing/manual_clock.ts";

/**
 * A Liveness whose pings the test answers; counts pings and deaths. `stale`
 * (default) starts it past the fresh window, where a probe pings.
 */
function rig(stale = true) {
  const clock = new ManualClock();
  const sent: PromiseWithResolvers<boolean>[] = [];
  const dead: string[] = [];
  const l = new Liveness(
    () => {
      const p = Promise.withResolvers<boolean>();
      sent.push(p);
      return p.promise;
    },
    clock,
    (why) => dead.push(why),
  );
  if (stale) clock.advance(FRESH_MS);
  return { clock, sent, dead, l };
}

/** Lets promise callbacks run (no time passes on the manual clock). */
const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

Deno.test("Liveness: one heartbeat however many users; a release counts once; the last release stops it", async () => {
  const { clock, sent, l } = rig();
  const release1 = l.use();
  const release2 = l.use();
  clock.advance(HEARTBEAT_MS);
  assert.equal(sent.length, 1, "one timer for two users");
  sent[0].resolve(true);
  await settle();
  release1();
  release1();
  clock.advance(HEARTBEAT_MS);
  assert.equal(sent.length, 2, "a user is left: released twice counts once");
  sent[1].resolve(true);
  await settle();
  release2();
  clock.advance(HEARTBEAT_MS * 5);
  await settle();
  assert.equal(sent.length, 2, "no user: no ping");
});

Deno.test("Liveness: concurrent probes share one ping; a stopped one answers false without pinging", async () => {
  const { sent, l, dead } = rig();
  const a = l.probe();
  const b = l.probe();
  assert.equal(sent.length, 1);
  sent[0].resolve(true);
  assert.deepEqual(await Promise.all([a, b]), [true, true]);
  l.stop();
  assert.equal(await l.probe(), false);
  assert.equal(sent.length, 1);
  assert.deepEqual(dead, [], "stopping is not a death");
});

Deno.test("Liveness: frames heard at the very moment of the ping do not make a late pong alive", async () => {
  const { clock, sent, l, dead } = rig();
  const probe = l.probe();
  l.heard();
  clock.advance(PONG_TIMEOUT_MS);
  assert.equal(await probe, false);
  assert.equal(dead.length, 1);
  assert.equal(sent.length, 1);
});

Deno.test("Liveness: a ping that fails after stop() reports no death", async () => {
  const { sent, l, dead } = rig();
  const probe = l.probe();
  l.stop();
  sent[0].resolve(false);
  assert.equal(await probe, false);
  assert.deepEqual(dead, []);
});

Deno.test("Liveness: a dead connection's heartbeat stops; using it again does not restart it", async () => {
  const { clock, sent, l, dead } = rig();
  l.use();
  clock.advance(HEARTBEAT_MS);
  sent[0].resolve(false);
  await settle();
  assert.equal(dead.length, 1);
  l.use();
  clock.advance(HEARTBEAT_MS * 5);
  await settle();
  assert.equal(sent.length, 1, "never pinged again");
});

Deno.test("Liveness: a heartbeat due after the last release does not ping", async () => {
  const { clock, sent, l } = rig();
  const release = l.use();
  clock.advance(HEARTBEAT_MS - 1);
  release();
  clock.advance(1);
  await settle();
  assert.equal(sent.length, 0);
});

Deno.test("Liveness: a channel found gone is dead even when frames came while it was pinged", async () => {
  const { clock, sent, l, dead } = rig();
  const probe = l.probe();
  clock.advance(1);
  l.heard();
  sent[0].resolve(false);
  assert.equal(await probe, false);
  assert.equal(dead.length, 1);
  assert.match(dead[0], /gone/);
});

Deno.test("Liveness: a connection heard from within the fresh window is not probed; past it, it is", async () => {
  const { clock, sent, l } = rig(false);
  assert.equal(await l.probe(), true, "just opened (initialize answered): fresh");
  clock.advance(FRESH_MS - 1);
  assert.equal(await l.probe(), true);
  assert.equal(sent.length, 0, "no ping within the window");
  l.heard(); // An answer: fresh again.
  clock.advance(FRESH_MS - 1);
  assert.equal(await l.probe(), true);
  assert.equal(sent.length, 0);
  clock.advance(1);
  const probe = l.probe();
  assert.equal(sent.length, 1, "stale: pinged");
  sent[0].resolve(false);
  assert.equal(await probe, false, "and found dead");
  assert.equal(FRESH_MS, HEARTBEAT_MS, "the window is one heartbeat period");
});
