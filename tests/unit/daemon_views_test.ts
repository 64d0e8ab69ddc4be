import assert from "assert";
import { RelayError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/log.ts";
import { newView, threadOf, ThreadRouting, type View } from "../../src/connect/thread_routing.ts";
import { heldView } from "../../src/connect/held_view.ts";
import type { RpcConnection } from "../../src/connect/rpc_connection.ts";
import type { Method } from "../../src/codex/methods.ts";
import type { ServerRequest } from "../../src/connect/connection.ts";

const A = "thread-a";
const B = "thread-b";

/** A view following `threadId`, recording what reaches it. */
function viewOf(threadId: string | undefined, withRequests = true) {
  const got: string[] = [];
  const view: View = newView();
  view.followed = threadId;
  view.listeners = {
    onNotification: (method, params) => got.push(`${method} ${threadOf(params) ?? "-"}`),
    ...(withRequests ? { onServerRequest: (r: ServerRequest) => got.push(`request ${r.id}`) } : {}),
  };
  return { view, got };
}

Deno.test("threadOf finds a thread id at params.threadId or params.thread.id, nothing else", () => {
  assert.equal(threadOf({ threadId: A }), A);
  assert.equal(threadOf({ thread: { id: B } }), B);
  assert.equal(threadOf({ threadId: A, thread: { id: B } }), A);
  for (
    const p of [null, undefined, "x", 3, {}, { threadId: 5 }, { thread: null }, { thread: "x" }, {
      thread: { id: 5 },
    }]
  ) {
    assert.equal(threadOf(p), undefined, JSON.stringify(p));
  }
  assert.equal(threadOf({ threadId: 5, thread: { id: B } }), B);
});

Deno.test("ThreadRouting: a thread's notification reaches only the views following it; a thread-less one all", () => {
  const routing = new ThreadRouting(silentLogger);
  const a = viewOf(A);
  const b = viewOf(B);
  const none = viewOf(undefined);
  const views = [a.view, b.view, none.view];
  routing.notification(views, "turn/started", { threadId: A });
  routing.notification(views, "thread/started", { thread: { id: B } });
  routing.notification(views, "account/updated", {});
  assert.deepEqual(a.got, ["turn/started thread-a", "account/updated -"]);
  assert.deepEqual(b.got, ["thread/started thread-b", "account/updated -"]);
  assert.deepEqual(none.got, ["account/updated -"]);
});

Deno.test("ThreadRouting: a server request reaches only views following its thread that take requests, and is answered once", () => {
  const routing = new ThreadRouting(silentLogger);
  const a = viewOf(A);
  const a2 = viewOf(A, false);
  const b = viewOf(B);
  const none = viewOf(undefined);
  const views = [a.view, a2.view, b.view, none.view];
  routing.serverRequest(views, { id: 1, method: "item/x", params: { threadId: A } });
  routing.serverRequest(views, { id: 2, method: "item/x", params: {} });
  assert.deepEqual([a.got, a2.got, b.got, none.got], [["request 1"], [], [], []]);
  assert.equal(routing.mayAnswer(b.view, 1), false, "not given to it");
  assert.equal(routing.mayAnswer(a2.view, 1), false, "a view without a request listener");
  assert.equal(routing.mayAnswer(a.view, 2), false, "a thread-less request is never given");
  assert.equal(routing.mayAnswer(a.view, 1), true);
  assert.equal(routing.mayAnswer(a.view, 1), false, "once");
});

Deno.test("ThreadRouting watchers see their thread's notifications until they stop, each on its own", () => {
  const routing = new ThreadRouting(silentLogger);
  const seen: string[] = [];
  const stop1 = routing.watch(A, (m) => seen.push(`1 ${m}`));
  const stop2 = routing.watch(A, (m) => seen.push(`2 ${m}`));
  routing.watch(B, (m) => seen.push(`b ${m}`));
  routing.notification([], "x", { threadId: A });
  routing.notification([], "y", {});
  stop1();
  routing.notification([], "z", { threadId: A });
  stop2();
  stop2();
  const stop3 = routing.watch(A, (m) => seen.push(`3 ${m}`));
  stop1();
  stop2();
  routing.notification([], "w", { threadId: A });
  stop3();
  routing.notification([], "v", { threadId: A });
  assert.deepEqual(
    seen,
    ["1 x", "2 x", "2 z", "3 w"],
    "a stale stop never removes a later watcher",
  );
});

/** A fake shared RpcConnection: records requests and answers; ends when told. */
function fakeRpc() {
  const ended = Promise.withResolvers<RelayError>();
  const sent: unknown[] = [];
  const rpc = {
    ended: ended.promise,
    request: (method: string, _params: unknown, options: { timeoutMs: number }) => {
      sent.push(["request", method, options.timeoutMs]);
      return Promise.resolve({ data: [], nextCursor: method });
    },
    respond: (id: unknown, result: unknown) => sent.push(["respond", id, result]),
    respondError: (id: unknown, code: number) => sent.push(["error", id, code]),
  } as unknown as RpcConnection;
  return { rpc, sent, end: ended.resolve };
}

function held(allowed = ["thread/list"]) {
  const f = fakeRpc();
  const routing = new ThreadRouting(silentLogger);
  const views = new Set<View>();
  let unused = 0;
  const conn = heldView({
    rpc: f.rpc,
    views,
    unuse: () => void unused++,
    routing,
    checkAllowed: (method) => {
      if (!allowed.includes(method)) throw new RelayError("not_allowed", method);
    },
    rpcTimeoutMs: 1000,
  });
  return { ...f, routing, views, conn, unused: () => unused };
}

Deno.test("heldView: joins the views, follows one thread, answers only what it was given, calls within the RPC timeout", async () => {
  const h = held();
  assert.equal(h.views.size, 1);
  const [view] = h.views;
  const requests: unknown[] = [];
  h.conn.listen({ onServerRequest: (r) => requests.push(r.id) });
  h.conn.follow(A);
  assert.equal(view.followed, A);
  h.routing.serverRequest(h.views, { id: 7, method: "item/x", params: { threadId: A } });
  assert.deepEqual(requests, [7]);
  h.conn.respond(7, { decision: "accept" });
  h.conn.respond(7, { decision: "accept" });
  h.conn.respondError(8, -1, "no");
  h.routing.serverRequest(h.views, { id: 9, method: "item/x", params: { threadId: A } });
  h.conn.respondError(9, -2, "no");
  assert.deepEqual(await h.conn.call("thread/list", {}), { data: [], nextCursor: "thread/list" });
  await h.conn.call("thread/list", {}, { timeoutMs: 50 });
  await h.conn.call("thread/list", {}, { timeoutMs: 5000 });
  assert.deepEqual(h.sent, [
    ["respond", 7, { decision: "accept" }],
    ["error", 9, -2],
    ["request", "thread/list", 1000],
    ["request", "thread/list", 50],
    ["request", "thread/list", 1000],
  ]);
  assert.throws(() => h.conn.call("thread/delete" as Method, {}), /thread\/delete/);
  assert.equal(h.conn.failure, undefined);
});

Deno.test("heldView: watch sees every notification on the connection, whatever its thread, until it stops", () => {
  const h = held();
  h.conn.follow(A);
  const seen: string[] = [];
  const record = (m: string, p: unknown) => void seen.push(`${m} ${threadOf(p) ?? "-"}`);
  const stop = h.conn.watch!(record);
  const again = h.conn.watch!(record);
  h.routing.notification(h.views, "x", { threadId: B });
  h.routing.notification(h.views, "y", {});
  stop();
  h.routing.notification(h.views, "z", { threadId: A });
  again();
  h.routing.notification(h.views, "w", { threadId: B });
  assert.deepEqual(seen, ["x thread-b", "x thread-b", "y -", "y -", "z thread-a"]);
});

Deno.test("heldView: when the shared connection ends, the view ends at once with its reason and sends nothing more", async () => {
  const h = held();
  const lost = new RelayError("connection_lost", "The daemon is gone", { written: true });
  h.end(lost);
  assert.equal(await h.conn.ended, lost);
  assert.equal(h.conn.failure, lost);
  assert.deepEqual([h.views.size, h.unused()], [0, 1]);
  const error = await h.conn.call("thread/list", {}).then(() => undefined, (e) => e);
  assert.ok(error instanceof RelayError);
  assert.deepEqual([error.reason, error.message, error.written, error.cause], [
    "connection_lost",
    "The daemon is gone",
    false,
    lost,
  ]);
  await h.conn.close();
  assert.equal(h.unused(), 1, "released once");
  assert.equal(h.conn.failure, lost, "the first reason stays");
  assert.deepEqual(h.sent, []);
});

Deno.test("heldView: closing detaches the view (cancelled) and never ends the shared connection", async () => {
  const h = held();
  await h.conn.close();
  const why = await h.conn.ended;
  assert.deepEqual([why.reason, why.message, why.written], [
    "cancelled",
    "The held connection was released",
    true,
  ]);
  assert.deepEqual([h.views.size, h.unused()], [0, 1]);
  h.end(new RelayError("connection_lost", "later"));
  await Promise.resolve();
  assert.equal(h.conn.failure?.reason, "cancelled");
  assert.equal(h.unused(), 1);
});
