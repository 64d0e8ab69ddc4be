import assert from "assert";
import { RelayError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/log.ts";
import { systemClock } from "../../src/core/clock.ts";
import type { FrameTransport } from "../../src/connect/frame_transport.ts";
import { RpcConnection } from "../../src/connect/rpc_connection.ts";
import { lowerOnly } from "../../src/connect/connection.ts";
import { newView, ThreadRouting } from "../../src/connect/thread_routing.ts";
import { heldView } from "../../src/connect/held_view.ts";
import { TurnSeats } from "../../src/connect/turn_seats.ts";
import { DEFAULT_SPAWN_LIMITS } from "../../src/connect/spawn/spawn_limits.ts";
import { DEFAULT_DAEMON_LIMITS } from "../../src/connect/daemon/daemon_limits.ts";

/** A transport the test feeds frames into and reads the written ones from. */
function pipe() {
  const written: unknown[] = [];
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const end = Promise.withResolvers<RelayError>();
  const transport: FrameTransport = {
    write: (frame) => {
      written.push(JSON.parse(frame));
      return Promise.resolve();
    },
    async *frames() {
      while (true) {
        while (queue.length > 0) yield queue.shift()!;
        if (ended) return;
        await new Promise<void>((r) => (wake = r));
      }
    },
    closed: () => end.promise,
  };
  return {
    transport,
    written,
    feed: (msg: unknown) => {
      queue.push(JSON.stringify(msg));
      wake?.();
    },
    hangUp: () => {
      ended = true;
      end.resolve(new RelayError("connection_lost", "gone"));
      wake?.();
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

Deno.test("ThreadRouting: a thread's notification reaches only the views following it, each heard as activity first when asked", () => {
  const routing = new ThreadRouting(silentLogger);
  const heard: string[] = [];
  const a = newView(), b = newView(), none = newView();
  a.followed = "A";
  b.followed = "B";
  for (const [name, view] of [["a", a], ["b", b], ["none", none]] as const) {
    view.listeners = {
      onActivity: () => heard.push(`${name}:activity`),
      onNotification: (method) => heard.push(`${name}:${method}`),
    };
  }
  routing.notification([a, b, none], "turn/started", { threadId: "A" }, true);
  assert.deepEqual(heard, ["a:activity", "a:turn/started"]);
  heard.length = 0;
  routing.notification([a, b, none], "turn/started", { thread: { id: "B" } });
  assert.deepEqual(heard, ["b:turn/started"], "without activity: the notification only");
  heard.length = 0;
  routing.notification([a, b, none], "account/updated", {});
  assert.deepEqual(heard, ["a:account/updated", "b:account/updated", "none:account/updated"]);
});

Deno.test("ThreadRouting: a server request is delivered to the follower of its thread only, and says whether anyone got it", () => {
  const routing = new ThreadRouting(silentLogger);
  const got: unknown[] = [];
  const a = newView();
  a.followed = "A";
  a.listeners = {
    onServerRequest: (r) => got.push(r.id),
    onActivity: () => got.push("activity"),
  };
  assert.equal(routing.serverRequest([a], { id: 0, method: "m", params: { threadId: "A" } }), true);
  assert.deepEqual(got, [0], "without activity: the request only");
  assert.equal(
    routing.serverRequest([a], { id: 3, method: "m", params: { threadId: "A" } }, true),
    true,
  );
  assert.deepEqual(got, [0, "activity", 3], "with activity: heard as activity first");
  assert.equal(routing.mayAnswer(a, 3), true);
  assert.equal(
    routing.serverRequest([a], { id: 1, method: "m", params: { threadId: "B" } }),
    false,
  );
  assert.equal(routing.serverRequest([a], { id: 2, method: "m", params: {} }), false);
  assert.deepEqual(got, [0, "activity", 3], "nothing of another thread, or of none");
  assert.equal(routing.mayAnswer(a, 0), true);
  assert.equal(routing.mayAnswer(a, 0), false, "answered once");
  assert.equal(routing.mayAnswer(a, 1), false, "never given");
});

Deno.test("heldView: two views of one connection see their own thread's frames and answer only their own requests", async () => {
  const p = pipe();
  const rpc = new RpcConnection(p.transport, systemClock, { answerUnhandled: false });
  const routing = new ThreadRouting(silentLogger);
  const views = new Set<ReturnType<typeof newView>>();
  rpc.listen({
    onNotification: (m, params) => routing.notification(views, m, params, true),
    onServerRequest: (r) => routing.serverRequest(views, r, true),
  });
  const deps = { rpc, views, routing, checkAllowed: () => {}, rpcTimeoutMs: 1000 };
  const seen: string[] = [];
  const make = (thread: string) => {
    const view = heldView({ ...deps, unuse: () => {} });
    view.follow(thread);
    view.listen({
      onNotification: (m, params) => seen.push(`${thread}:${m}:${JSON.stringify(params)}`),
      onServerRequest: (r) => seen.push(`${thread}:ask:${r.id}`),
    });
    return view;
  };
  const a = make("A"), b = make("B");
  p.feed({ method: "turn/started", params: { threadId: "B" } });
  p.feed({ id: 0, method: "item/commandExecution/requestApproval", params: { threadId: "A" } });
  await settle();
  assert.deepEqual(seen, ['B:turn/started:{"threadId":"B"}', "A:ask:0"]);
  b.respond(0, { decision: "accept" });
  assert.equal(p.written.length, 0, "B was never given request 0: its answer is not sent");
  a.respond(0, { decision: "decline" });
  assert.deepEqual(p.written, [{ id: 0, result: { decision: "decline" } }]);
  p.hangUp();
  rpc.close(new RelayError("connection_lost", "gone"));
});

Deno.test("heldView: closing waits for what releasing the use returns (the turn host's reap); losing the connection ends every view at once", async () => {
  const p = pipe();
  const rpc = new RpcConnection(p.transport, systemClock);
  const routing = new ThreadRouting(silentLogger);
  const views = new Set<ReturnType<typeof newView>>();
  const deps = { rpc, views, routing, checkAllowed: () => {}, rpcTimeoutMs: 1000 };
  const reap = Promise.withResolvers<void>();
  let unused = 0;
  const first = heldView({
    ...deps,
    unuse: () => {
      unused++;
      return reap.promise;
    },
  });
  let closed = false;
  const closing = first.close().then(() => (closed = true));
  await settle();
  assert.equal(closed, false, "close waits for the release");
  reap.resolve();
  await closing;
  await first.close();
  assert.equal(unused, 1, "released once");
  assert.equal(views.size, 0);

  const second = heldView({ ...deps, unuse: () => {} });
  const third = heldView({ ...deps, unuse: () => {} });
  p.hangUp();
  const [e2, e3] = await Promise.all([second.ended, third.ended]);
  assert.equal(e2.reason, e3.reason);
  assert.equal(second.failure, e2);
  const refused = await second.call("thread/list", {}).catch((e: RelayError) => e);
  assert.ok(refused instanceof RelayError && refused.written === false, "nothing more is sent");
});

Deno.test("TurnSeats: at the bound the last seat is given; past it busy at once with how many run; a freed seat is taken again", () => {
  const seats = new TurnSeats(8, "in spawn mode");
  const given = Array.from({ length: 8 }, () => seats.take());
  assert.equal(seats.inUse, 8);
  const refused = (() => {
    try {
      seats.take();
    } catch (error) {
      return error as RelayError;
    }
  })();
  assert.equal(refused?.reason, "busy");
  assert.equal(refused?.written, false);
  assert.match(
    refused?.message ?? "",
    /^8 turns are running, the most this relay runs at once in spawn mode; wait for one to end \(codex_wait_reply\) or interrupt one/,
  );
  given[0]();
  given[0]();
  assert.equal(seats.inUse, 7, "giving back is idempotent");
  seats.take();
  assert.equal(seats.peak, 8);
});

Deno.test("the bound of turns at once: 8 in spawn mode, 16 in daemon mode, only ever lowered", () => {
  assert.equal(DEFAULT_SPAWN_LIMITS.turns, 8);
  assert.equal(DEFAULT_DAEMON_LIMITS.turns, 16);
  assert.equal(lowerOnly(DEFAULT_SPAWN_LIMITS, { turns: 9 }).turns, 8, "never raised");
  assert.equal(lowerOnly(DEFAULT_SPAWN_LIMITS, { turns: 2 }).turns, 2);
  assert.equal(lowerOnly(DEFAULT_DAEMON_LIMITS, { turns: 17 }).turns, 16, "never raised");
  assert.equal(lowerOnly(DEFAULT_DAEMON_LIMITS, { turns: 15 }).turns, 15);
});
