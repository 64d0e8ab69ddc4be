import assert from "assert";
import { rejection } from "../../testing/fixture_home.ts";
import type { Method } from "../../src/codex/methods.ts";
import { RelayError } from "../../src/core/errors.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { FakeDaemon } from "../../testing/fake_daemon.ts";
import { DaemonConnection } from "../../src/connect/daemon/daemon_connection.ts";
import { FRESH_MS, HEARTBEAT_MS, PONG_TIMEOUT_MS } from "../../src/connect/daemon/liveness.ts";

const THREAD = "01a22a5b-0000-7000-8000-000000000001";

function daemon(fake: FakeDaemon, clock = new ManualClock()) {
  return new DaemonConnection({
    allowlist: new Set(["thread/list", "thread/resume"]),
    version: "0.0.0-test",
    clock,
    dial: fake.dial,
  });
}

/** Lets queued microtasks run until `cond` holds (fails if it never does). */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 0));
  assert.ok(cond(), "condition not reached");
}

const list = (d: DaemonConnection) => d.operation((s) => s.call("thread/list", {}));

Deno.test("daemon: a call right after an answer writes without a probe; one after the fresh window probes first", async () => {
  const fake = new FakeDaemon();
  const clock = new ManualClock();
  const d = daemon(fake, clock);
  const first = list(d);
  await fake.heldCount(1);
  fake.releaseAll();
  await first;
  const pings = fake.links[0].pings;
  const second = list(d);
  await fake.heldCount(1);
  fake.releaseAll();
  await second;
  assert.equal(fake.links[0].pings, pings, "heard from just now: no ping before the write");
  clock.advance(FRESH_MS);
  const third = list(d);
  await fake.heldCount(1);
  fake.releaseAll();
  await third;
  assert.equal(fake.links[0].pings, pings + 1, "stale: one ping before the write");
  await d.shutdown();
});

Deno.test("daemon loss: what was in flight fails connection_lost (maybe written), every view ends at once, the next call redials", async () => {
  const fake = new FakeDaemon();
  const d = daemon(fake);
  const held = await d.hold();
  held.follow(THREAD);
  const other = await d.hold();
  assert.equal(d.stats.alive, 1);
  const inFlight = rejection(list(d));
  await fake.heldCount(1);
  fake.links[0].lose();
  const e = await inFlight;
  assert.deepEqual([e.reason, e.written], ["connection_lost", true]);
  const [a, b] = await Promise.all([held.ended, other.ended]);
  assert.deepEqual([a.reason, b.reason], ["connection_lost", "connection_lost"]);
  assert.equal(held.failure?.reason, "connection_lost");
  const late = await rejection(held.call("thread/list", {}));
  assert.deepEqual([late.reason, late.written], ["connection_lost", false], "never written");
  await until(() => d.stats.alive === 0);
  const next = list(d);
  await fake.heldCount(1);
  fake.releaseAll();
  assert.deepEqual(await next, { data: [], nextCursor: null });
  assert.equal(fake.dials, 2);
  assert.equal(d.stats.spawned, 2);
  assert.deepEqual(fake.links[0].written, ["initialize", "initialized", "thread/list"]);
  await d.shutdown();
});

Deno.test("daemon loss: a connection found dead before a write is never written to; the daemon is redialled once", async () => {
  const fake = new FakeDaemon();
  const clock = new ManualClock();
  const d = daemon(fake, clock);
  const first = list(d);
  await fake.heldCount(1);
  fake.releaseAll();
  await first;
  fake.links[0].ping = false;
  clock.advance(FRESH_MS); // Not heard from since: probed before the write.
  const second = list(d);
  await fake.heldCount(1);
  assert.deepEqual(fake.links[0].written, ["initialize", "initialized", "thread/list"]);
  assert.equal(fake.held[0].link, fake.links[1], "sent on the new connection");
  fake.releaseAll();
  assert.deepEqual(await second, { data: [], nextCursor: null });
  assert.equal(fake.links[0].closed, true, "the dead one was closed");
  const third = list(d);
  await fake.heldCount(1);
  fake.releaseAll();
  await third;
  assert.equal(fake.dials, 2, "the new connection stays the one in use");
  await d.shutdown();
});

Deno.test("daemon loss: a daemon dead within the fresh window is written to once, and the write says it may have happened", async () => {
  const fake = new FakeDaemon();
  const clock = new ManualClock();
  const d = daemon(fake, clock);
  const first = list(d);
  await fake.heldCount(1);
  fake.releaseAll();
  await first;
  fake.links[0].ping = false; // Dead now, but heard from just now: not probed.
  const second = rejection(list(d));
  await fake.heldCount(1);
  assert.equal(fake.held[0].link, fake.links[0], "written to the connection heard from last");
  fake.links[0].lose();
  const e = await second;
  assert.deepEqual([e.reason, e.written], ["connection_lost", true], "honest: maybe written");
  await d.shutdown();
});

Deno.test("daemon loss: an operation that loses the daemon 3 times fails unwritten, dialling no 4th connection", async () => {
  const fake = new FakeDaemon();
  const d = daemon(fake);
  let lost = 0;
  const e = await rejection(d.operation(async (s) => {
    for (let i = 0; i < 3; i++) {
      const call = s.call("thread/list", {});
      await fake.heldCount(1);
      fake.held[0].link.lose();
      await call.catch(() => lost++);
    }
    await s.call("thread/list", {});
  }));
  assert.equal(lost, 3, "three connections used in turn");
  assert.deepEqual([e.reason, e.written], ["connection_lost", false]);
  assert.equal(e.message, "The operation lost its connection to the app-server daemon 3 times");
  assert.equal(fake.links.length, 3, "no 4th connection was dialled");
  await d.shutdown();
});

Deno.test("daemon loss: while in use, an unanswered heartbeat ping past the pong timeout loses the connection", async () => {
  const fake = new FakeDaemon();
  const clock = new ManualClock();
  const d = daemon(fake, clock);
  const held = await d.hold();
  fake.links[0].ping = "never";
  clock.advance(HEARTBEAT_MS);
  clock.advance(PONG_TIMEOUT_MS - 1);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(held.failure, undefined, "one ms before the pong timeout: alive");
  clock.advance(1);
  const why = await held.ended;
  assert.equal(why.reason, "connection_lost");
  assert.match(why.message, /did not answer a ping within 3 s/);
  assert.equal(fake.links[0].closed, true);
  await d.shutdown();
});

Deno.test("daemon: a frame past the bound fails the call output_limit, even while a heartbeat ping waits on that channel", async () => {
  const fake = new FakeDaemon();
  const clock = new ManualClock();
  const d = daemon(fake, clock);
  const call = list(d);
  await fake.heldCount(1);
  const link = fake.links[0];
  link.ping = "held";
  const pings = link.pings;
  clock.advance(HEARTBEAT_MS);
  await until(() => link.pings > pings);
  link.breakWith(new RelayError("output_limit", "a frame past the bound", { written: true }));
  const e = await rejection(call);
  assert.equal(e.reason, "output_limit", "the channel's own reason, not the ping's");
  await d.shutdown();
});

Deno.test("daemon: the heartbeat pings only while a view or an operation uses the connection", async () => {
  const fake = new FakeDaemon();
  const clock = new ManualClock();
  const d = daemon(fake, clock);
  const held = await d.hold();
  await held.close();
  fake.links[0].ping = false;
  clock.advance(HEARTBEAT_MS * 10);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(fake.links[0].closed, false, "unused: never pinged");
  const again = await d.hold();
  assert.equal(fake.links[0].closed, true, "probed before use: found dead and closed");
  assert.equal(fake.dials, 2, "the view is on a new connection");
  assert.deepEqual(fake.links[0].written, ["initialize", "initialized"]);
  await again.close();
  await d.shutdown();
});

Deno.test("daemon: a failed initialize fails the operation unwritten and closes that connection", async () => {
  const fake = new FakeDaemon();
  fake.failInitialize = true;
  const d = daemon(fake);
  const e = await rejection(list(d));
  assert.equal(e.written, false);
  assert.equal(fake.links[0].closed, true);
  assert.deepEqual(fake.links[0].written, ["initialize"]);
  fake.failInitialize = false;
  const next = list(d);
  await fake.heldCount(1);
  fake.releaseAll();
  assert.deepEqual(await next, { data: [], nextCursor: null });
  assert.deepEqual(d.initializeResult, { userAgent: "fake/0.1.0" });
  await d.shutdown();
});

Deno.test("daemon: a method outside the allowlist is refused before anything is dialled; after shutdown nothing is", async () => {
  const fake = new FakeDaemon();
  const d = daemon(fake);
  const refused = await rejection(d.operation((s) => s.call("thread/delete" as Method, {})));
  assert.deepEqual([refused.reason, refused.written], ["not_allowed", false]);
  const held = await d.hold();
  assert.throws(() => held.call("thread/delete" as Method, {}), /not allowed/);
  await d.shutdown();
  assert.equal(fake.links[0].closed, true);
  const after = await rejection(list(d));
  assert.deepEqual([after.reason, after.written], ["cancelled", false]);
  assert.equal(after.message, "codex-relay is shutting down");
  const hold = await rejection(d.hold());
  assert.equal(hold.reason, "cancelled");
  assert.equal(fake.dials, 1);
  assert.equal(await d.kill(), 0, "nothing live to kill");
});

Deno.test("daemon: hold waits at most its budget for the daemon, then times out unwritten", async () => {
  const clock = new ManualClock();
  const d = new DaemonConnection({
    allowlist: new Set(["thread/list"]),
    version: "0",
    clock,
    dial: () => new Promise(() => {}),
  });
  const waiting = rejection(d.hold({ budgetMs: 500 }));
  await new Promise((r) => setTimeout(r, 0));
  clock.advance(500);
  const e = await waiting;
  assert.deepEqual([e.reason, e.written], ["timeout", false]);
  assert.equal(e.message, "The app-server daemon was not ready within 500 ms");
  assert.equal(d.stats.alive, 0);
});

Deno.test("daemon: a thread's notifications and requests reach the view following it and its watchers", async () => {
  const fake = new FakeDaemon();
  const d = daemon(fake);
  const held = await d.hold();
  const seen: string[] = [];
  let activity = 0;
  held.listen({
    onNotification: (m) => seen.push(m),
    onServerRequest: (r) => seen.push(`request ${r.id}`),
    onActivity: () => activity++,
  });
  held.follow(THREAD);
  const watched: string[] = [];
  const op = d.operation(async (s) => {
    const stop = s.watch!(THREAD, (m) => watched.push(m));
    const r = await s.call("thread/list", {});
    stop();
    return r;
  });
  await fake.heldCount(1);
  const link = fake.links[0];
  link.push({ method: "turn/started", params: { threadId: THREAD } });
  link.push({ method: "turn/started", params: { threadId: "other" } });
  link.push({
    id: 5,
    method: "item/commandExecution/requestApproval",
    params: { threadId: THREAD },
  });
  await until(() => seen.length === 2);
  fake.releaseAll();
  await op;
  link.push({ method: "turn/completed", params: { threadId: THREAD } });
  await until(() => seen.length === 3);
  assert.deepEqual(seen, ["turn/started", "request 5", "turn/completed"]);
  assert.deepEqual(watched, ["turn/started"], "the watch ended with the operation");
  assert.ok(activity >= 4);
  held.respond(5, { decision: "accept" });
  held.respond(5, { decision: "accept" });
  await until(() => link.written.includes("answer 5"));
  assert.equal(link.written.filter((w) => w === "answer 5").length, 1);
  await d.shutdown();
});

Deno.test("daemon: initialize names the relay and asks for the experimental API", async () => {
  const fake = new FakeDaemon();
  const d = new DaemonConnection({
    allowlist: new Set(["thread/list"]),
    version: "9.8.7",
    dial: fake.dial,
  });
  await (await d.hold()).close();
  assert.deepEqual(fake.links[0].initialize, {
    clientInfo: { name: "codex_relay", title: "codex-relay", version: "9.8.7" },
    capabilities: { experimentalApi: true },
  });
  assert.equal(await d.kill(), 1, "a live connection is killed");
  assert.equal(fake.links[0].closed, true);
  await d.shutdown();
});

Deno.test("daemon: an operation's RPC gets at most what is left of its budget; the caller's abort ends it unwritten", async () => {
  const fake = new FakeDaemon();
  const clock = new ManualClock();
  const d = daemon(fake, clock);
  const slow = rejection(d.operation((s) => s.call("thread/list", {}), { budgetMs: 700 }));
  await fake.heldCount(1);
  clock.advance(700);
  const e = await slow;
  assert.equal(e.reason, "timeout");
  fake.held.splice(0);
  const caller = new AbortController();
  const op = rejection(d.operation(async (s) => {
    caller.abort(new RelayError("cancelled", "the client went away"));
    return await s.call("thread/list", {});
  }, { signal: caller.signal }));
  const aborted = await op;
  assert.deepEqual([aborted.reason, aborted.written], ["cancelled", false]);
  assert.equal(fake.held.length, 0, "never sent");
  await d.shutdown();
});

Deno.test("daemon: an operation's watches end with it, even those it did not stop", async () => {
  const fake = new FakeDaemon();
  const d = daemon(fake);
  const watched: string[] = [];
  const op = d.operation(async (s) => {
    s.watch!(THREAD, (m) => watched.push(m));
    return await s.call("thread/list", {});
  });
  await fake.heldCount(1);
  fake.links[0].push({ method: "turn/started", params: { threadId: THREAD } });
  await until(() => watched.length === 1);
  fake.releaseAll();
  await op;
  const held = await d.hold();
  held.follow(THREAD);
  const seen: string[] = [];
  held.listen({ onNotification: (m) => seen.push(m) });
  fake.links[0].push({ method: "turn/completed", params: { threadId: THREAD } });
  await until(() => seen.length === 1);
  assert.deepEqual(watched, ["turn/started"]);
  await d.shutdown();
});

Deno.test("daemon: views without listeners take frames without failing; a transport without ping counts as alive", async () => {
  const fake = new FakeDaemon();
  fake.pings = false;
  const clock = new ManualClock();
  const d = daemon(fake, clock);
  const bare = await d.hold();
  bare.follow(THREAD);
  const other = await d.hold();
  const seen: string[] = [];
  other.follow(THREAD);
  other.listen({ onNotification: (m) => seen.push(m) });
  fake.links[0].push({ method: "turn/started", params: { threadId: THREAD } });
  await until(() => seen.length === 1);
  assert.equal(bare.failure, undefined);
  clock.advance(FRESH_MS); // Stale: a call probes the connection first.
  const call = list(d);
  await fake.heldCount(1);
  fake.releaseAll();
  await call;
  assert.equal(bare.failure, undefined);
  assert.equal(fake.dials, 1, "no ping, no redial");
  await d.shutdown();
  const [a, b] = await Promise.all([bare.ended, other.ended]);
  assert.deepEqual([a.reason, b.reason], ["cancelled", "cancelled"]);
  assert.equal(a.message, "codex-relay is shutting down");
});

Deno.test("daemon: shutdown while the daemon is being opened closes that connection and fails the call unwritten", async () => {
  const fake = new FakeDaemon();
  const gate = Promise.withResolvers<void>();
  const d = new DaemonConnection({
    allowlist: new Set(["thread/list"]),
    version: "0",
    dial: async () => {
      await gate.promise;
      return await fake.dial();
    },
  });
  const call = rejection(list(d));
  const done = d.shutdown();
  gate.resolve();
  const e = await call;
  assert.deepEqual([e.reason, e.written], ["cancelled", false]);
  await done;
  assert.ok(fake.links.every((l) => l.closed), "nothing left open");
});

Deno.test("daemon: one operation may make many RPCs on one healthy connection", async () => {
  const fake = new FakeDaemon();
  const d = daemon(fake);
  const op = d.operation(async (s) => {
    for (let i = 0; i < 5; i++) {
      const call = s.call("thread/list", {});
      await fake.heldCount(1);
      fake.releaseAll();
      await call;
    }
    return "done";
  });
  assert.equal(await op, "done");
  assert.equal(fake.dials, 1);
  await d.shutdown();
});

Deno.test("daemon: concurrent first calls share one dial; a caller's abort while it opens is not waited for", async () => {
  const fake = new FakeDaemon();
  const gate = Promise.withResolvers<void>();
  let dials = 0;
  const d = new DaemonConnection({
    allowlist: new Set(["thread/list"]),
    version: "0",
    dial: async () => {
      dials++;
      await gate.promise;
      return await fake.dial();
    },
  });
  const caller = new AbortController();
  const a = d.hold();
  const b = d.hold();
  const c = rejection(d.hold({ signal: caller.signal }));
  caller.abort(new RelayError("cancelled", "gone"));
  const e = await c;
  assert.deepEqual([e.reason, e.written], ["cancelled", false]);
  gate.resolve();
  await Promise.all([a, b]);
  assert.equal(dials, 1);
  const already = new AbortController();
  already.abort(new RelayError("cancelled", "before"));
  const before = await rejection(d.hold({ signal: already.signal }));
  assert.deepEqual([before.reason, before.written], ["cancelled", false]);
  await d.shutdown();
});

Deno.test("daemon: a dial that fails fails the call unwritten, whatever the dial said", async () => {
  const d = new DaemonConnection({
    allowlist: new Set(["thread/list"]),
    version: "0",
    dial: () => Promise.reject(new RelayError("codex_missing", "no codex", { written: true })),
  });
  const e = await rejection(list(d));
  assert.deepEqual([e.reason, e.written], ["codex_missing", false]);
  await d.shutdown();
});

Deno.test("daemon: a server request no view follows is never answered, by the relay or anyone", async () => {
  const fake = new FakeDaemon();
  const d = daemon(fake);
  const held = await d.hold();
  held.follow(THREAD);
  const seen: unknown[] = [];
  held.listen({ onServerRequest: (r) => seen.push(r.id) });
  const link = fake.links[0];
  link.push({ id: 1, method: "item/commandExecution/requestApproval", params: { threadId: "x" } });
  link.push({ id: 2, method: "item/commandExecution/requestApproval", params: {} });
  link.push({
    id: 3,
    method: "item/commandExecution/requestApproval",
    params: { threadId: THREAD },
  });
  await until(() => seen.length === 1);
  assert.deepEqual(seen, [3]);
  assert.deepEqual(link.written, ["initialize", "initialized"], "nothing answered");
  await d.shutdown();
});

Deno.test("daemon: a lost connection is closed, and a heartbeat loss says the write may have happened", async () => {
  const fake = new FakeDaemon();
  const clock = new ManualClock();
  const d = daemon(fake, clock);
  const held = await d.hold();
  fake.links[0].lose();
  await held.ended;
  await until(() => fake.links[0].closed);
  const next = await d.hold();
  fake.links[1].ping = "never";
  clock.advance(HEARTBEAT_MS);
  clock.advance(PONG_TIMEOUT_MS);
  const why = await next.ended;
  assert.deepEqual([why.reason, why.written], ["connection_lost", true]);
  await d.kill();
  const after = await rejection(list(d));
  assert.deepEqual([after.reason, after.message], ["cancelled", "codex-relay is shutting down"]);
  await d.shutdown();
});

Deno.test("daemon: a daemon that never answers initialize fails the call at the RPC timeout, unwritten", async () => {
  const fake = new FakeDaemon();
  fake.answerInitialize = false;
  const clock = new ManualClock();
  const d = daemon(fake, clock);
  const call = rejection(list(d));
  await until(() => fake.links.length === 1 && fake.links[0].written.length === 1);
  clock.advance(d.limits.rpcTimeoutMs);
  const e = await call;
  assert.deepEqual([e.reason, e.written], ["timeout", false]);
  assert.equal(fake.links[0].closed, true);
  await d.shutdown();
});
