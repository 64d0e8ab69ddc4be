import assert from "assert";
import {
  DaemonConnection,
  type DaemonOptions,
} from "../../src/connect/daemon/daemon_connection.ts";
import { DEFAULT_LIMITS, type ServerRequest } from "../../src/connect/connection.ts";
import { dialProxy } from "../../src/connect/daemon/proxy_dial.ts";
import type { Method } from "../../src/codex/methods.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { WAIT_DEADLINE_MS } from "../../testing/deadline.ts";
import { type FixtureHome, rejection, thread, withFixture } from "../../testing/fixture_home.ts";

const METHODS = new Set<Method>([
  "thread/list",
  "thread/queue/add",
  "thread/queue/list",
  "thread/resume",
]);

function daemonFor(f: FixtureHome, over: Partial<DaemonOptions> = {}): DaemonConnection {
  return new DaemonConnection({
    allowlist: METHODS,
    version: "0.0.0-test",
    env: f.env,
    reap: { eofGraceMs: 1000, termGraceMs: 500 },
    ...over,
  });
}

const list = (d: DaemonConnection) => d.operation((s) => s.call("thread/list", { limit: 5 }));

async function proxies(f: FixtureHome): Promise<number> {
  return (await f.log()).filter((e) => e.event === "proxy").length;
}

const input = [{ type: "text" as const, text: "hello", text_elements: [] }];

Deno.test("daemon: nothing is spawned until the first RPC, then one proxy serves every operation", async () => {
  const t = thread();
  await withFixture({ threads: [t] }, async (f) => {
    const d = daemonFor(f);
    await d.operation(() => Promise.resolve("no RPC"));
    assert.equal(await proxies(f), 0, "an operation without RPCs opens nothing");
    const first = await list(d) as { data: { id: string }[] };
    assert.deepEqual(first.data.map((x) => x.id), [t.id]);
    await Promise.all([
      list(d),
      list(d),
      list(d),
      d.operation(async (s) => {
        await s.call("thread/list", {});
        return await s.call("thread/queue/list", { threadId: t.id });
      }),
    ]);
    assert.equal(await proxies(f), 1);
    const proxyLog = (await f.log()).find((e) => e.event === "proxy") as { args?: string[] };
    assert.deepEqual(proxyLog.args, ["app-server", "proxy"]);
    const methods = (await f.requests()).map((r) => r.method);
    assert.equal(methods.filter((m) => m === "initialize").length, 1, "initialized once");
    assert.equal(d.stats.alive, 1);
    await d.shutdown();
    assert.equal(d.stats.alive, 0);
  });
});

Deno.test("daemon: a method outside the allowlist is refused before anything is spawned", async () => {
  await withFixture({ threads: [] }, async (f) => {
    const d = daemonFor(f);
    const e = await rejection(d.operation((s) => s.call("turn/start" as Method, {} as never)));
    assert.equal(e.reason, "not_allowed");
    assert.equal(e.written, false);
    assert.equal(await proxies(f), 0);
    await d.shutdown();
  });
});

Deno.test("daemon: no daemon running fails daemon_unavailable, not written, saying how to start it", async () => {
  await withFixture({ threads: [], proxy: { noDaemon: true } }, async (f) => {
    const d = daemonFor(f);
    const e = await rejection(list(d));
    assert.equal(e.reason, "daemon_unavailable");
    assert.equal(e.written, false);
    assert.match(e.message, /codex app-server daemon start/);
    assert.match(e.message, /failed to connect to socket/);
    assert.doesNotMatch(e.message, /backtrace|<unknown>/, "the backtrace is not passed on");
    // The next call tries again: a daemon started meanwhile is found.
    await f.write({ threads: [] });
    await list(d);
    assert.equal(await proxies(f), 2);
    await d.shutdown();
  });
});

Deno.test("daemon: unix:// target passes --sock PATH; nothing at the path is daemon_unavailable naming it", async () => {
  await withFixture({ threads: [], proxy: { socketPath: "/forwarded/remote.sock" } }, async (f) => {
    const good = daemonFor(f, { target: { kind: "unix", path: "/forwarded/remote.sock" } });
    await list(good);
    await good.shutdown();
    const bad = daemonFor(f, { target: { kind: "unix", path: "/nothing/here.sock" } });
    const e = await rejection(list(bad));
    assert.equal(e.reason, "daemon_unavailable");
    assert.match(e.message, /\/nothing\/here\.sock/);
    await bad.shutdown();
    const args = (await f.log()).filter((e) => e.event === "proxy").map((e) =>
      (e as { args?: string[] }).args
    );
    assert.deepEqual(args, [
      ["app-server", "proxy", "--sock", "/forwarded/remote.sock"],
      ["app-server", "proxy", "--sock", "/nothing/here.sock"],
    ]);
  });
});

for (
  const [name, action] of [
    ["exits mid-frame", { exitMidFrame: true }],
    ["writes bytes that are no WebSocket frame", { garbage: true }],
    ["sends a text frame that is not JSON", { textGarbage: true }],
    ["closes the WebSocket", { close: true }],
    ["exits after the app-server acted (answer lost)", { loseAnswer: true }],
  ] as const
) {
  Deno.test(`daemon: a proxy that ${name} fails the operation connection_lost; the next one reconnects`, async () => {
    const t = thread();
    await withFixture({
      threads: [t],
      proxy: { faults: [{ method: "thread/list", once: "lost", action }] },
    }, async (f) => {
      const d = daemonFor(f);
      const e = await rejection(list(d));
      assert.equal(e.reason, "connection_lost");
      assert.equal(e.written, true, "the request was in flight");
      const again = await list(d) as { data: unknown[] };
      assert.equal(again.data.length, 1);
      assert.equal(await proxies(f), 2);
      await d.shutdown();
    });
  });
}

Deno.test("daemon: a queue write in flight when the connection is lost is written (unknown), never replayed", async () => {
  const t = thread();
  await withFixture({
    threads: [t],
    proxy: { faults: [{ method: "thread/queue/add", action: { loseAnswer: true } }] },
  }, async (f) => {
    const d = daemonFor(f);
    const e = await rejection(
      d.operation((s) =>
        s.call("thread/queue/add", { threadId: t.id, clientUserMessageId: "m-1", input })
      ),
    );
    assert.equal(e.reason, "connection_lost");
    assert.equal(e.written, true);
    const queued = await d.operation((s) => s.call("thread/queue/list", { threadId: t.id })) as {
      data: { clientUserMessageId: string }[];
    };
    assert.deepEqual(queued.data.map((q) => q.clientUserMessageId), ["m-1"], "it was stored");
    const adds = (await f.requests()).filter((r) => r.method === "thread/queue/add");
    assert.equal(adds.length, 1, "sent once, not replayed on the new connection");
    await d.shutdown();
  });
});

Deno.test("daemon: operations in flight on the dead connection all fail; a later call in the same operation reconnects", async () => {
  const t = thread();
  await withFixture({
    threads: [t],
    faults: [{ method: "thread/queue/list", nth: 1, barrier: "slow" }],
    proxy: { faults: [{ method: "thread/list", once: "lost", action: { exitMidFrame: true } }] },
  }, async (f) => {
    const slow = await f.barrier("slow");
    const d = daemonFor(f);
    const stuck = rejection(d.operation((s) => s.call("thread/queue/list", { threadId: t.id })));
    await slow.reached();
    const retried = await d.operation(async (s) => {
      const first = await rejection(s.call("thread/list", {}));
      assert.equal(first.reason, "connection_lost");
      return await s.call("thread/list", {});
    }) as { data: unknown[] };
    assert.equal(retried.data.length, 1);
    const e = await stuck;
    assert.equal(e.reason, "connection_lost");
    assert.equal(e.written, true);
    await d.shutdown();
  });
});

Deno.test("daemon: one slow answer does not hold up other operations on the connection", async () => {
  const t = thread();
  await withFixture({
    threads: [t],
    faults: [{ method: "thread/queue/list", nth: 1, barrier: "slow" }],
  }, async (f) => {
    const slow = await f.barrier("slow");
    const d = daemonFor(f);
    const held = d.operation((s) => s.call("thread/queue/list", { threadId: t.id }));
    await slow.reached();
    for (let i = 0; i < 3; i++) await list(d);
    await slow.release();
    assert.deepEqual(await held, { data: [], nextCursor: null });
    assert.equal(await proxies(f), 1);
    await d.shutdown();
  });
});

Deno.test("daemon: an RPC past its timeout fails timeout and leaves the connection serving", async () => {
  const t = thread();
  await withFixture({
    threads: [t],
    faults: [{
      method: "thread/queue/list",
      nth: 1,
      barrier: "queue-list-read",
      action: { never: true },
    }],
  }, async (f) => {
    // The RPC bound runs on a manual clock (it passes only when the test says so); the
    // proxy's dial gets its own generous bound, so a slow start under load is not the timeout.
    const clock = new ManualClock();
    const rpcTimeoutMs = 300;
    const d = daemonFor(f, {
      clock,
      limits: { rpcTimeoutMs },
      dial: () =>
        dialProxy({
          command: "codex",
          env: f.env,
          target: { kind: "daemon" },
          frameBytes: DEFAULT_LIMITS.frameBytes,
          stderrBytes: DEFAULT_LIMITS.stderrBytes,
          reap: { eofGraceMs: 1000, termGraceMs: 500 },
          timeoutMs: WAIT_DEADLINE_MS,
        }),
    });
    const read = await f.barrier("queue-list-read");
    const pending = rejection(d.operation((s) => s.call("thread/queue/list", { threadId: t.id })));
    await read.reached(); // the fixture has the request: its RPC timer is running
    clock.advance(rpcTimeoutMs);
    const e = await pending;
    assert.equal(e.reason, "timeout");
    await read.release(); // the fixture goes on to never answer
    await list(d);
    assert.equal(await proxies(f), 1);
    await d.shutdown();
  });
});

Deno.test("daemon: the 1 MiB frame bound: a frame at the bound is read, one byte past fails output_limit", async () => {
  const t = thread();
  const bound = 1024 * 1024;
  await withFixture({
    threads: [t],
    faults: [
      { method: "thread/list", nth: 1, action: { frameBytes: bound } },
      { method: "thread/list", nth: 2, action: { frameBytes: bound + 1 } },
    ],
  }, async (f) => {
    const d = daemonFor(f);
    const ok = await list(d) as { data: unknown[] };
    assert.equal(ok.data.length, 1);
    const e = await rejection(list(d));
    assert.equal(e.reason, "output_limit");
    await d.shutdown();
  });
});

Deno.test("daemon: a held view sees only the thread it follows and answers only requests it was given", async () => {
  const approval = {
    method: "item/commandExecution/requestApproval",
    params: { itemId: "call_1", command: "echo hi", cwd: "/w", reason: null },
  };
  const mine = thread({ scripts: [[{ request: approval }, { end: "completed" }]] });
  const theirs = thread({ scripts: [[{ request: approval }, { end: "completed" }]] });
  await withFixture({ threads: [mine, theirs] }, async (f) => {
    const d = daemonFor(f);
    const view = await d.hold();
    const got: ServerRequest[] = [];
    const notes: string[] = [];
    const asked = Promise.withResolvers<void>();
    view.listen({
      onServerRequest: (r) => {
        got.push(r);
        asked.resolve();
      },
      onNotification: (method, params) =>
        notes.push(`${method}:${(params as { threadId?: string }).threadId ?? "-"}`),
    });
    view.follow(mine.id);
    const seen: string[] = [];
    const theirsDone = Promise.withResolvers<void>();
    // Their turn first: its approval reaches this connection but no view follows it.
    await d.operation(async (s) => {
      s.watch?.(theirs.id, (method) => {
        seen.push(method);
        if (method === "item/started") theirsDone.resolve();
      });
      await s.call("thread/resume", { threadId: theirs.id });
      await s.call("thread/queue/add", { threadId: theirs.id, clientUserMessageId: "t", input });
      await theirsDone.promise;
    });
    assert.ok(seen.includes("thread/status/changed"), "watch() sees the thread's status");
    await d.operation(async (s) => {
      await s.call("thread/resume", { threadId: mine.id });
      await s.call("thread/queue/add", { threadId: mine.id, clientUserMessageId: "m", input });
    });
    await asked.promise;
    assert.equal(got.length, 1);
    assert.equal((got[0].params as { threadId: string }).threadId, mine.id);
    assert.ok(notes.every((n) => !n.endsWith(theirs.id)), "no notification of their thread");
    assert.equal(got[0].id, 1, "ids are per connection: theirs (0) came first");
    view.respond(0, { decision: "accept" }); // Never given to this view: not sent.
    view.respond(got[0].id, { decision: "decline" });
    view.respond(got[0].id, { decision: "accept" }); // Answered already: not sent again.
    await view.close();
    assert.equal(view.failure?.reason, "cancelled");
    await list(d); // The shared connection outlives the view.
    const answers = await f.answers();
    assert.deepEqual(answers.map((a) => [a.id, a.result]), [[1, { decision: "decline" }]]);
    assert.equal(await proxies(f), 1);
    await d.shutdown();
  });
});

Deno.test("daemon: shutdown ends the proxy and the app-server behind it; a held view ends with it", async () => {
  await withFixture({ threads: [] }, async (f) => {
    const d = daemonFor(f);
    const view = await d.hold();
    await list(d);
    await d.shutdown();
    assert.equal((await view.ended).reason, "cancelled");
    const e = await rejection(list(d));
    assert.equal(e.reason, "cancelled");
    assert.equal(e.written, false);
  });
});
