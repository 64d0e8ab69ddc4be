/**
 * The turn machinery picks its path from what the backend says it can do
 * (`Connection.capabilities`), never from which backend it is: a third
 * backend (here one that runs the fixture app-server in a private helper
 * and declares whatever the test says) attaches to running turns when, and
 * only when, it says `shared`; and `codex_run` on a stored thread subscribes
 * before it queues (every app-server keeps a thread it loaded loaded).
 */
import assert from "assert";
import { allowedMethods } from "../../src/codex/methods.ts";
import { silentLogger } from "../../src/core/log.ts";
import type { BackendCapabilities, Connection } from "../../src/connect/connection.ts";
import { SpawnConnection } from "../../src/connect/spawn/spawn_connection.ts";
import { turnMachinery } from "../../src/turn/turn_machinery.ts";
import { attachTurn } from "../../src/turn/turn_attach.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { type FixtureHome, thread, withFixture } from "../../testing/fixture_home.ts";

/** A backend that is neither `spawn` nor `daemon`: the fixture's helpers, with `capabilities`. */
function thirdBackend(f: FixtureHome, capabilities: BackendCapabilities): Connection {
  const inner = new SpawnConnection({
    allowlist: allowedMethods({ replyRead: false, turnStart: true }),
    version: "0.0.0-test",
    env: f.env,
  });
  return {
    capabilities,
    limits: inner.limits,
    clock: inner.clock,
    get stats() {
      return inner.stats;
    },
    operation: (fn, options) => inner.operation(fn, options),
    hold: (options) => inner.hold(options),
    shutdown: () => inner.shutdown(),
    kill: () => inner.kill(),
  };
}

/** The methods the fixture was asked about `threadId`, in order. */
async function methodsFor(f: FixtureHome, threadId: string): Promise<string[]> {
  return (await f.requests())
    .filter((r) => (r.params as { threadId?: unknown } | undefined)?.threadId === threadId)
    .map((r) => r.method);
}

Deno.test(
  "codex_run on a stored thread through a third backend subscribes (thread/resume) before it queues",
  async () => {
    const t = thread();
    await withFixture({ threads: [t] }, async (f) => {
      const connection = thirdBackend(f, { shared: false });
      const { turns, starts } = turnMachinery({
        connection,
        clock: new ManualClock(),
        log: silentLogger,
        readsReplies: false,
      });
      try {
        const started = await starts.inThread(t.id, "hello", new AbortController().signal);
        assert.ok(started.runtime, `started: ${started.message}`);
        await started.runtime.run.settled;
        const methods = (await methodsFor(f, t.id)).filter((m) =>
          m === "thread/resume" || m === "thread/queue/add"
        );
        assert.deepEqual(methods, ["thread/resume", "thread/queue/add"]);
      } finally {
        await turns.shutdown();
        await connection.shutdown();
      }
    });
  },
);

for (const attaches of [true, false]) {
  Deno.test(
    `a wait's attach through a backend that says shared: ${attaches} ${
      attaches ? "asks Codex whether the thread is loaded" : "sends nothing"
    }`,
    async () => {
      const t = thread();
      await withFixture({ threads: [t] }, async (f) => {
        const connection = thirdBackend(f, { shared: attaches });
        const clock = new ManualClock();
        const { turns } = turnMachinery({
          connection,
          clock,
          log: silentLogger,
          readsReplies: false,
        });
        try {
          const runtime = await attachTurn(
            { connection, registry: turns, clock, log: silentLogger },
            { threadId: t.id, clientMessageId: crypto.randomUUID(), turnId: "turn-1" },
            new AbortController().signal,
          );
          // The fixture's helper does not hold the thread loaded: nothing is attached either way.
          assert.equal(runtime, undefined);
          const asked = (await f.requests()).map((r) => r.method);
          assert.deepEqual(asked, attaches ? ["initialize", "thread/list"] : []);
        } finally {
          await connection.shutdown();
        }
      });
    },
  );
}
