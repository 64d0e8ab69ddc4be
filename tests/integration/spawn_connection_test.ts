import assert from "assert";
import type { RelayError } from "../../src/core/errors.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { SpawnConnection, type SpawnOptions } from "../../src/connect/spawn/spawn_connection.ts";
import type { Method } from "../../src/codex/methods.ts";
import {
  FIXTURE_BIN,
  type FixtureHome,
  rejection,
  thread,
  withFixture as withFixtureHome,
} from "../../testing/fixture_home.ts";
import type { Scenario } from "../../fixtures/scenario.ts";
import { within } from "../../testing/deadline.ts";
import { denoOnPathIsShim } from "../../testing/npm_shim.ts";

const QUEUE_METHODS = new Set<Method>(["thread/list", "thread/queue/add", "thread/queue/list"]);

const opened: SpawnConnection[] = [];

/** A spawn backend on `f`'s fixture, shut down (its warm helper reaped) when the test ends. */
function connectionFor(f: FixtureHome, over: Partial<SpawnOptions> = {}): SpawnConnection {
  const connection = new SpawnConnection({
    allowlist: QUEUE_METHODS,
    version: "0.0.0-test",
    env: f.env,
    reap: { eofGraceMs: 300, termGraceMs: 300 },
    ...over,
  });
  opened.push(connection);
  return connection;
}

/** The fixture home, every connection of the test shut down before the process table is checked. */
function withFixture(scenario: Scenario, fn: (f: FixtureHome) => Promise<void>): Promise<void> {
  return withFixtureHome(scenario, async (f) => {
    try {
      await fn(f);
    } finally {
      await Promise.all(opened.splice(0).map((c) => c.shutdown()));
    }
  });
}

const listThreads = (connection: SpawnConnection, signal?: AbortSignal) =>
  connection.operation((s) => s.call("thread/list", { limit: 5 }), { signal });

Deno.test("SpawnConnection.operation() initializes with experimentalApi, runs the RPC; shutdown reaps the warm helper", async () => {
  const t = thread();
  await withFixture({ threads: [t] }, async (f) => {
    const connection = connectionFor(f);
    const result = await listThreads(connection);
    assert.deepEqual(result.data.map((x) => x.id), [t.id]);
    const reqs = await f.requests();
    assert.deepEqual(reqs.map((r) => r.method), ["initialize", "thread/list"]);
    assert.deepEqual((reqs[0].params as { capabilities: unknown }).capabilities, {
      experimentalApi: true,
    });
    assert.equal(connection.stats.alive, 1, "the helper stays warm");
    await connection.shutdown();
    assert.equal(connection.stats.alive, 0);
    // At shutdown an idle helper is signalled right after its stdin closes (the shutdown bound is
    // shared), so whether it read the EOF first is a race: what holds is that it is gone.
    assert.deepEqual(f.alive(), [], "the warm helper's process group is gone");
  });
});

Deno.test("SpawnConnection.operation() runs all RPCs of one operation on one helper", async () => {
  const t = thread();
  await withFixture({ threads: [t] }, async (f) => {
    const connection = connectionFor(f);
    await connection.operation(async (s) => {
      await s.call("thread/list", {});
      await s.call("thread/queue/list", { threadId: t.id });
      await s.call("thread/list", {});
    });
    assert.equal((await f.spawned()).length, 1);
  });
});

Deno.test("SpawnConnection refuses a method outside the allowlist without spawning or writing", async () => {
  await withFixture({ threads: [] }, async (f) => {
    const connection = connectionFor(f);
    const error = await rejection(
      connection.operation((s) => s.call("thread/items/list", { threadId: "x" })),
    );
    assert.equal(error.reason, "not_allowed");
    assert.equal(error.written, false);
    assert.deepEqual(await f.spawned(), []);
    assert.deepEqual(await f.requests(), []);
  });
});

Deno.test("SpawnConnection refuses a later method outside the allowlist without writing it", async () => {
  await withFixture({ threads: [] }, async (f) => {
    const connection = connectionFor(f);
    const error = await rejection(connection.operation(async (s) => {
      await s.call("thread/list", {});
      // A method the map does not have (a type error without the cast).
      await s.call("turn/start" as Method, { threadId: "x" } as never);
    }));
    assert.equal(error.reason, "not_allowed");
    assert.deepEqual((await f.requests()).map((r) => r.method), ["initialize", "thread/list"]);
  });
});

Deno.test("SpawnConnection accepts a frame of exactly 1 MiB", async () => {
  await withFixture({
    threads: [thread()],
    faults: [{ method: "thread/list", action: { frameBytes: 1024 * 1024 } }],
  }, async (f) => {
    // The padding is applied: one byte more is refused (the next test).
    const result = await listThreads(connectionFor(f));
    assert.equal(result.data.length, 1);
  });
});

Deno.test("SpawnConnection rejects a frame of 1 MiB + 1 byte with output_limit", async () => {
  await withFixture({
    threads: [thread()],
    faults: [{ method: "thread/list", action: { frameBytes: 1024 * 1024 + 1 } }],
  }, async (f) => {
    const error = await rejection(listThreads(connectionFor(f)));
    assert.equal(error.reason, "output_limit");
    assert.equal(error.written, true);
  });
});

Deno.test("SpawnConnection enforces the RPC timeout and reaps the helper", async () => {
  await withFixture({
    threads: [],
    faults: [{ method: "thread/list", barrier: "seen", action: { never: true } }],
  }, async (f) => {
    const clock = new ManualClock();
    const connection = connectionFor(f, { clock });
    const seen = await f.barrier("seen");
    const pending = listThreads(connection);
    await seen.reached(); // The RPC is written and its timer armed.
    await seen.release();
    clock.advance(11_999);
    assert.equal(connection.stats.alive, 1, "not yet timed out at 11.999 s");
    clock.advance(1);
    const error = await rejection(pending);
    assert.equal(error.reason, "timeout");
    assert.equal(error.written, true);
    assert.equal(connection.stats.alive, 0);
  });
});

Deno.test("SpawnConnection shares one operation deadline across RPCs", async () => {
  const t = thread();
  await withFixture({
    threads: [t],
    faults: [
      { method: "thread/list", barrier: "first" },
      { method: "thread/queue/list", barrier: "second" },
    ],
  }, async (f) => {
    const clock = new ManualClock();
    const connection = connectionFor(f, { clock });
    const first = await f.barrier("first");
    const second = await f.barrier("second");
    const pending = connection.operation(async (s) => {
      await s.call("thread/list", {});
      await s.call("thread/queue/list", { threadId: t.id });
      return "done";
    });
    await first.reached();
    clock.advance(11_000); // Under the 12 s RPC timeout.
    await first.release();
    await second.reached();
    clock.advance(8_999); // 19.999 s of the 20 s budget: the second RPC (9 s old) lives.
    assert.equal(connection.stats.alive, 1);
    clock.advance(1); // 20 s: the operation budget is spent though no RPC reached 12 s.
    const error = await rejection(pending);
    assert.equal(error.reason, "timeout");
    assert.match(error.message, /20 s/);
    await second.release().catch(() => {});
    assert.equal(connection.stats.alive, 1, "a spent budget is not a hung helper: it stays warm");
  });
});

Deno.test("SpawnConnection cancellation mid-RPC answers at once; the warm helper serves the next operation", async () => {
  await withFixture(
    { threads: [], faults: [{ method: "thread/list", once: "hold", barrier: "hold" }] },
    async (f) => {
      const connection = connectionFor(f);
      const hold = await f.barrier("hold");
      const controller = new AbortController();
      const pending = listThreads(connection, controller.signal);
      await hold.reached();
      const [pid] = await f.spawned();
      controller.abort();
      const error = await rejection(pending);
      assert.equal(error.reason, "cancelled");
      assert.equal(error.written, true);
      await hold.release();
      await listThreads(connection);
      assert.deepEqual(await f.spawned(), [pid], "the next operation ran on the same helper");
    },
  );
});

Deno.test("SpawnConnection reports an app-server that exits before initialize as spawn_failed", async () => {
  await withFixture({ threads: [], startup: { exitOnInitialize: 7 } }, async (f) => {
    const error = await rejection(listThreads(connectionFor(f)));
    assert.equal(error.reason, "spawn_failed");
    assert.equal(error.written, false);
    assert.match(error.message, /exit code 7/);
  });
});

Deno.test("SpawnConnection reports a lost acknowledgement (exit after reading) as written protocol_error", async () => {
  await withFixture(
    { threads: [], faults: [{ method: "thread/list", action: { exit: 0 } }] },
    async (f) => {
      const error = await rejection(listThreads(connectionFor(f)));
      assert.equal(error.reason, "protocol_error");
      assert.equal(error.written, true);
    },
  );
});

Deno.test("SpawnConnection reports an exit mid-frame as protocol_error", async () => {
  await withFixture({
    threads: [thread()],
    faults: [{ method: "thread/list", action: { exitMidFrame: true } }],
  }, async (f) => {
    const error = await rejection(listThreads(connectionFor(f)));
    assert.equal(error.reason, "protocol_error");
    assert.match(error.message, /exited/);
  });
});

Deno.test("SpawnConnection fails the operation on a garbage line", async () => {
  await withFixture(
    { threads: [], faults: [{ method: "thread/list", action: { garbage: true } }] },
    async (f) => {
      const error = await rejection(listThreads(connectionFor(f)));
      assert.equal(error.reason, "protocol_error");
      assert.match(error.message, /not JSON/);
    },
  );
});

Deno.test("SpawnConnection fails the operation on a response with a wrong id", async () => {
  await withFixture(
    { threads: [], faults: [{ method: "thread/list", action: { wrongId: true } }] },
    async (f) => {
      const error = await rejection(listThreads(connectionFor(f)));
      assert.equal(error.reason, "protocol_error");
      assert.match(error.message, /not sent/);
    },
  );
});

// What the kept tail holds (the last 16 KiB) is tested on HelperProcess in
// tests/unit/helper_stderr_test.ts; here: a flood never stalls the operation.
Deno.test("SpawnConnection drains a 6 MiB stderr flood and the operation still completes", async () => {
  await withFixture({
    threads: [thread()],
    startup: { stderrFlood: 4 * 1024 * 1024 },
    faults: [{ method: "thread/list", action: { stderrFlood: 2 * 1024 * 1024 } }],
  }, async (f) => {
    const result = await listThreads(connectionFor(f)) as { data: unknown[] };
    assert.equal(result.data.length, 1);
  });
});

Deno.test("SpawnConnection kills a helper that ignores stdin EOF and SIGTERM", async () => {
  await withFixture({ threads: [thread()], startup: { stubborn: true } }, async (f) => {
    const connection = connectionFor(f);
    const result = await listThreads(connection) as { data: unknown[] };
    assert.equal(result.data.length, 1);
    await connection.shutdown();
    assert.equal(connection.stats.alive, 0);
    assert.deepEqual(f.alive(), [], "the stubborn helper's process group is gone");
    const events = (await f.log()).map((e) => e.event).filter(Boolean);
    if (!denoOnPathIsShim()) {
      assert.ok(events.includes("sigterm-ignored"), "SIGTERM was sent and ignored before SIGKILL");
    }
  });
});

Deno.test("SpawnConnection maps app-server errors to reason codes", async () => {
  await withFixture({ threads: [] }, async (f) => {
    const connection = connectionFor(f);
    const missing = "01a00000-0000-7000-8000-000000000000";
    const error = await rejection(
      connection.operation((s) => s.call("thread/queue/list", { threadId: missing })),
    );
    assert.equal(error.reason, "thread_not_found");
    assert.equal(error.rpcCode, -32603);
  });
});

Deno.test("SpawnConnection reports codex_missing when codex is not on PATH", async () => {
  await withFixture({ threads: [] }, async (f) => {
    const empty = await Deno.makeTempDir();
    try {
      const connection = connectionFor(f, { env: { ...f.env, PATH: empty } });
      const error = await rejection(listThreads(connection));
      assert.equal(error.reason, "codex_missing");
      assert.equal(error.written, false);
      assert.equal(connection.stats.alive, 0);
    } finally {
      await Deno.remove(empty, { recursive: true });
    }
  });
});

Deno.test("SpawnConnection runs the binary --codex names (not codex on PATH); one gone since install is codex_missing with the fix", async () => {
  const t = thread({ name: "named" });
  await withFixture({ threads: [t] }, async (f) => {
    const empty = await Deno.makeTempDir();
    try {
      // Nothing named codex on PATH: only the named binary can answer.
      const env = { ...f.env, PATH: f.env.PATH.replace(FIXTURE_BIN, empty) };
      const named = connectionFor(f, { env, command: `${FIXTURE_BIN}/codex` });
      const page = await listThreads(named);
      assert.deepEqual(page.data.map((x) => x.id), [t.id]);
      const gone = connectionFor(f, { env, command: `${empty}/codex` });
      const error = await rejection(listThreads(gone));
      assert.equal(error.reason, "codex_missing");
      assert.equal(error.written, false);
      assert.match(error.message, /\(--codex\) does not exist: .*run codex-relay install again/);
      await named.shutdown();
      await gone.shutdown();
    } finally {
      await Deno.remove(empty, { recursive: true });
    }
  });
});

Deno.test("SpawnConnection reports spawn_failed when codex is not a working program", async () => {
  await withFixture({ threads: [] }, async (f) => {
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeFile(`${dir}/codex`, new TextEncoder().encode("\x7fELF broken"), {
        mode: 0o755,
      });
      const connection = connectionFor(f, { env: { ...f.env, PATH: dir } });
      const error = await rejection(listThreads(connection));
      assert.equal(error.reason, "spawn_failed");
      assert.equal(error.written, false);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("SpawnConnection runs at most inFlight operations on its one helper; the rest wait and then run", async () => {
  await withFixture({
    threads: [thread()],
    faults: [
      { method: "thread/list", once: "a", barrier: "a" },
      { method: "thread/list", once: "b", barrier: "b" },
    ],
  }, async (f) => {
    const connection = connectionFor(f, { limits: { inFlight: 2 } });
    const a = await f.barrier("a");
    const b = await f.barrier("b");
    const first = listThreads(connection);
    const second = listThreads(connection);
    await a.reached();
    await b.reached();
    const third = listThreads(connection);
    assert.equal(connection.stats.waiting, 1);
    assert.equal(connection.stats.alive, 1, "both run on one helper");
    await a.release();
    await b.release();
    await Promise.all([first, second, third]);
    assert.equal(connection.stats.peak, 2);
    assert.equal((await f.spawned()).length, 1);
  });
});

Deno.test("SpawnConnection.shutdown() cancels operations and reaps every helper", async () => {
  await withFixture(
    { threads: [], faults: [{ method: "thread/list", barrier: "hold" }] },
    async (f) => {
      const connection = connectionFor(f);
      const hold = await f.barrier("hold");
      const pending = rejection(listThreads(connection));
      await hold.reached();
      await connection.shutdown();
      const error = await pending;
      assert.equal(error.reason, "cancelled");
      assert.equal(connection.stats.alive, 0);
    },
  );
});

Deno.test("SpawnConnection: with 4 operations in flight, 64 wait; the 65th waiter is busy at once", async () => {
  await withFixture({ threads: [thread()] }, async (f) => {
    const connection = connectionFor(f);
    assert.equal(connection.limits.inFlight, 4);
    assert.equal(connection.limits.queue, 64);
    const gate = Promise.withResolvers<void>();
    const answered = Array.from({ length: 4 }, () => Promise.withResolvers<void>());
    const holding = answered.map((a) =>
      connection.operation(async (s) => {
        await s.call("thread/list", {});
        a.resolve();
        await gate.promise; // Keeps its slot until the test lets go.
      })
    );
    await within(Promise.all(answered.map((a) => a.promise)), "Four operations answered");
    assert.equal(connection.stats.alive, 1, "all four on one helper");
    const cancel = new AbortController();
    const waiting = Array.from(
      { length: 64 },
      () =>
        connection.operation((s) => s.call("thread/list", {}), { signal: cancel.signal }).then(
          () => "ran",
          (e: RelayError) => e.reason,
        ),
    );
    await Promise.resolve();
    assert.equal(connection.stats.waiting, 64, "the queue holds 64 waiters");
    const busy = await rejection(listThreads(connection));
    assert.equal(busy.reason, "busy");
    assert.equal(busy.message, "All 4 operation slots are busy and 64 calls are waiting");
    assert.equal(busy.written, false);
    assert.equal(connection.stats.spawned, 1);
    cancel.abort();
    assert.deepEqual(new Set(await Promise.all(waiting)), new Set(["cancelled"]));
    gate.resolve();
    await Promise.all(holding);
    assert.equal(connection.stats.peak, 4);
  });
});

Deno.test("SpawnConnection: one operation may use 3 sequential helpers; a 4th is refused without spawning", async () => {
  await withFixture({
    threads: [thread()],
    faults: [{ method: "thread/list", action: { exit: 1 } }], // Every helper dies on it.
  }, async (f) => {
    const connection = connectionFor(f);
    assert.equal(connection.limits.connectionsPerOperation, 3);
    const seen: { reason: string; message: string; written: boolean; spawned: number }[] = [];
    await connection.operation(async (s) => {
      for (let i = 0; i < 4; i++) {
        const { reason, message, written } = await rejection(s.call("thread/list", {}));
        seen.push({ reason, message, written, spawned: connection.stats.spawned });
      }
    });
    const died = {
      reason: "protocol_error",
      message: "The app-server exited (code 1)",
      written: true,
    };
    assert.deepEqual(seen, [
      { ...died, spawned: 1 },
      { ...died, spawned: 2 },
      { ...died, spawned: 3 },
      {
        reason: "connection_lost",
        message: "The operation lost its connection to codex app-server 3 times",
        written: false,
        spawned: 3,
      },
    ]);
    assert.equal((await f.spawned()).length, 3, "the 4th helper was never spawned");
  });
});
