import assert from "assert";
import {
  FRESH_MS,
  HEARTBEAT_MS,
  Liveness,
  PONG_TIMEOUT_MS,
} from "../../src/connect/daemon/liveness.ts";
import { ManualClock } from "../../testing/manual_clock.ts";

/** A ping the test answers by hand. */
function pings() {
  const sent: PromiseWithResolvers<boolean>[] = [];
  return {
    sent,
    ping: () => {
      const p = Promise.withResolvers<boolean>();
      sent.push(p);
      return p.promise;
    },
  };
}

/** Lets promise callbacks run (no time passes on the manual clock). */
const settle = () => new Promise((r) => setTimeout(r, 0));

Deno.test("Liveness: a probe pings; a pong means alive, a channel that ended means dead (once)", async () => {
  const clock = new ManualClock();
  const p = pings();
  const dead: string[] = [];
  const l = new Liveness(p.ping, clock, (why) => dead.push(why));
  clock.advance(FRESH_MS); // Past the fresh window: a probe pings.
  const first = l.probe();
  const shared = l.probe();
  assert.equal(p.sent.length, 1, "probes starting together share one ping");
  p.sent[0].resolve(true);
  assert.deepEqual(await Promise.all([first, shared]), [true, true]);
  assert.equal(clock.pending, 0, "an answered ping leaves no pong timer behind");
  clock.advance(FRESH_MS);
  const second = l.probe();
  p.sent[1].resolve(false);
  assert.equal(await second, false);
  assert.equal(await l.probe(), false, "known dead: no more pings");
  assert.equal(p.sent.length, 2);
  assert.equal(dead.length, 1);
  assert.match(dead[0], /gone/);
});

Deno.test("Liveness: an unanswered ping is dead after the pong timeout, unless frames came meanwhile", async () => {
  const clock = new ManualClock();
  const p = pings();
  const dead: string[] = [];
  const l = new Liveness(p.ping, clock, (why) => dead.push(why));
  clock.advance(FRESH_MS); // Past the fresh window: a probe pings.
  const busy = l.probe();
  assert.equal(p.sent.length, 1);
  clock.advance(10);
  l.heard(); // A frame, though no pong yet.
  clock.advance(PONG_TIMEOUT_MS);
  assert.equal(await busy, true);
  const silent = l.probe();
  assert.equal(p.sent.length, 2);
  clock.advance(PONG_TIMEOUT_MS);
  assert.equal(await silent, false);
  assert.equal(dead.length, 1);
  assert.match(dead[0], /did not answer a ping/);
});

Deno.test("Liveness: the heartbeat pings only while the connection is in use, and reports a dead one", async () => {
  const clock = new ManualClock();
  const p = pings();
  const dead: string[] = [];
  const l = new Liveness(p.ping, clock, (why) => dead.push(why));
  clock.advance(HEARTBEAT_MS * 3);
  assert.equal(p.sent.length, 0, "unused: no heartbeat");
  const release = l.use();
  clock.advance(HEARTBEAT_MS);
  assert.equal(p.sent.length, 1);
  p.sent[0].resolve(true);
  await settle();
  clock.advance(HEARTBEAT_MS);
  assert.equal(p.sent.length, 2, "it beats on");
  p.sent[1].resolve(false);
  await settle();
  assert.equal(dead.length, 1, "a beat that finds the channel gone reports it");
  clock.advance(HEARTBEAT_MS * 3);
  assert.equal(p.sent.length, 2, "no beat after death");
  release();
  const other = new Liveness(p.ping, clock, () => {});
  const done = other.use();
  done();
  clock.advance(HEARTBEAT_MS * 3);
  assert.equal(p.sent.length, 2, "released: no heartbeat");
});
