/**
 * Issue 20, item 6: promises that had no test to notice their loss. A turn
 * runtime on a shared (daemon) connection never takes or forwards a request
 * of another turn, before or after its own turn's id is known; following a
 * turn in daemon mode never resumes a thread the daemon has not loaded.
 */

import assert from "assert";
import {
  type ConnectionListeners,
  type HeldConnection,
  typedCall,
} from "../../src/connect/connection.ts";
import { RelayError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/log.ts";
import type { ElicitationRouter } from "../../src/elicit/router.ts";
import { TurnRegistry } from "../../src/turn/turn_registry.ts";
import { DEFAULT_TURN_LIMITS } from "../../src/turn/turn_watchdog.ts";
import { attachTurn } from "../../src/turn/turn_attach.ts";
import { turnMachinery } from "../../src/turn/turn_machinery.ts";
import type { Connection } from "../../src/connect/connection.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { resolveThread } from "../../src/ops/resolve_thread.ts";

const THREAD = "01a22a5b-0000-7000-8000-000000000001";

/** A held connection on a shared backend: records what is sent and answered. */
function fakeHeld(answer: (method: string) => unknown = () => ({})) {
  let listeners: ConnectionListeners = {};
  const sent: string[] = [];
  const answered: unknown[] = [];
  const conn: HeldConnection = {
    call: typedCall((method) => {
      sent.push(method);
      return Promise.resolve(answer(method));
    }),
    listen: (l) => (listeners = l),
    follow: () => {},
    respond: (id) => answered.push(id),
    respondError: (id) => answered.push(id),
    ended: new Promise<RelayError>(() => {}),
    failure: undefined,
    close: () => Promise.resolve(),
  };
  return { conn, sent, answered, listeners: () => listeners };
}

/** The runtime of a run of "my-message" on `THREAD`, started on a shared connection `conn`. */
function sharedRuntime(conn: HeldConnection, router: ElicitationRouter, clock: ManualClock) {
  const registry = new TurnRegistry({
    router,
    clock,
    log: silentLogger,
    limits: DEFAULT_TURN_LIMITS,
    shared: true,
    readsReplies: false,
  });
  return registry.adopt(conn, registry.begin(THREAD, "my-message")!);
}

Deno.test("a runtime on the daemon takes only its own turn's requests, once: never another turn's, before or after its turn id is known", () => {
  const received: { id: unknown; turnId: unknown }[] = [];
  const router = {
    receive: (_rt: unknown, id: unknown, _m: string, params: { turnId?: unknown }) =>
      received.push({ id, turnId: params?.turnId }),
    forget: () => {},
    declineAll: () => {},
    resolved: () => {},
  } as unknown as ElicitationRouter;
  const held = fakeHeld();
  const runtime = sharedRuntime(held.conn, router, new ManualClock());
  const request = (id: number, turnId?: string) =>
    held.listeners().onServerRequest!({
      id,
      method: "item/commandExecution/requestApproval",
      params: { threadId: THREAD, ...(turnId ? { turnId } : {}), itemId: "i" },
    });
  const notify = (method: string, params: unknown) =>
    held.listeners().onNotification!(method, params);

  // Before its own turn is known: the user's turn runs first on the thread.
  request(0, "users-turn");
  request(1);
  notify("item/started", {
    threadId: THREAD,
    turnId: "users-turn",
    item: { type: "userMessage", id: "u0", clientId: "theirs" },
  });
  request(2, "users-turn");
  assert.deepEqual(received, [], "nothing of another turn before the runtime's own is known");

  // Its own message starts: now its turn id is known.
  notify("item/started", {
    threadId: THREAD,
    turnId: "my-turn",
    item: { type: "userMessage", id: "u1", clientId: "my-message" },
  });
  request(3, "users-turn");
  request(4, "my-turn");
  request(4, "my-turn"); // Replayed by the daemon to a new subscription: taken once.
  request(5);
  assert.deepEqual(received, [{ id: 4, turnId: "my-turn" }]);
  assert.deepEqual(held.answered, [], "another turn's requests are never answered or declined");
  assert.equal(runtime.run.threadId, THREAD);
});

Deno.test("following a turn in daemon mode never resumes a thread the daemon has not loaded", async () => {
  const threadList = (type: string) => ({
    data: [{ id: THREAD, name: null, status: { type }, updatedAt: 1796006982 }],
    nextCursor: null,
  });
  const held = fakeHeld((method) => method === "thread/list" ? threadList("notLoaded") : {});
  const clock = new ManualClock();
  const connection = {
    capabilities: {
      shared: true,
    },
    limits: {},
    clock,
    hold: () => Promise.resolve(held.conn),
  } as unknown as Connection;
  const { turns } = turnMachinery({ connection, clock, log: silentLogger, readsReplies: true });
  const attached = await attachTurn(
    { connection, registry: turns, clock, log: silentLogger },
    { threadId: THREAD, clientMessageId: "m", turnId: "t" },
    new AbortController().signal,
  );
  assert.equal(attached, undefined, "not attached");
  assert.deepEqual(held.sent, ["thread/list"], "its status was read, and it was not resumed");
  assert.equal(turns.run(THREAD)?.handle, undefined, "no runtime is left on the thread");
});

Deno.test("thread names match exactly, case included", async () => {
  const threads = [
    { id: "01a22a5b-0000-7000-8000-00000000000a", name: "Alpha" },
    { id: "01a22a5b-0000-7000-8000-00000000000b", name: "alpha" },
    { id: "01a22a5b-0000-7000-8000-00000000000c", name: "alpha " },
  ];
  const session = {
    call: typedCall((method) => {
      assert.equal(method, "thread/list");
      return Promise.resolve({
        data: threads.map((t) => ({ ...t, status: { type: "notLoaded" }, updatedAt: 1 })),
        nextCursor: null,
      });
    }),
    signal: new AbortController().signal,
    remainingMs: () => 10_000,
  };
  assert.equal(await resolveThread(session, "Alpha"), threads[0].id);
  assert.equal(await resolveThread(session, "alpha"), threads[1].id);
  assert.equal(await resolveThread(session, "alpha "), threads[2].id);
  const none = await resolveThread(session, "ALPHA");
  assert.ok(none instanceof RelayError && none.reason === "thread_not_found");
  // An uppercase UUID is an id, not a name: canonical (lowercase), with no lookup.
  assert.equal(await resolveThread(session, THREAD.toUpperCase()), THREAD);
});

/** A runtime on a shared connection whose message still waits in the queue; records what it sends. */
function queuedRuntime() {
  let listeners: ConnectionListeners = {};
  const sent: [string, unknown][] = [];
  const conn: HeldConnection = {
    call: typedCall((method, params) => {
      sent.push([method, params]);
      return Promise.resolve({});
    }),
    listen: (l) => (listeners = l),
    follow: () => {},
    respond: () => {},
    respondError: () => {},
    ended: new Promise<RelayError>(() => {}),
    failure: undefined,
    close: () => Promise.resolve(),
  };
  const router = { forget: () => {}, declineAll: () => {}, resolved: () => {} };
  const clock = new ManualClock();
  const runtime = sharedRuntime(conn, router as unknown as ElicitationRouter, clock);
  const notify = (method: string, params: unknown) => listeners.onNotification!(method, params);
  return { runtime, sent, clock, notify };
}

Deno.test("interrupting a run whose message Codex takes just then interrupts its turn once it starts, never the turn before it", async () => {
  const { runtime, sent, notify } = queuedRuntime();
  assert.equal(runtime.snapshot().phase, "queued");
  const interrupting = runtime.interrupt();
  // The user's turn ahead of it ends; Codex starts the run's message (the withdraw came too late).
  notify("turn/started", { threadId: THREAD, turn: { id: "users-turn" } });
  notify("turn/completed", { threadId: THREAD, turn: { id: "users-turn", status: "completed" } });
  notify("turn/started", { threadId: THREAD, turn: { id: "my-turn" } });
  notify("item/started", {
    threadId: THREAD,
    turnId: "my-turn",
    item: { type: "userMessage", id: "u1", clientId: "my-message" },
  });
  await Promise.resolve();
  await Promise.resolve();
  assert.deepEqual(sent, [["turn/interrupt", { threadId: THREAD, turnId: "my-turn" }]]);
  notify("turn/completed", { threadId: THREAD, turn: { id: "my-turn", status: "interrupted" } });
  await interrupting;
  assert.equal(runtime.snapshot().phase, "interrupted");
});

Deno.test("interrupting a queued run whose turn never starts within the grace ends it interrupted, sending nothing", async () => {
  const { runtime, sent, clock } = queuedRuntime();
  const interrupting = runtime.interrupt();
  clock.advance(DEFAULT_TURN_LIMITS.interruptGraceMs);
  await interrupting;
  assert.equal(runtime.snapshot().phase, "interrupted");
  assert.deepEqual(sent, [], "no turn/interrupt: nothing of another turn is touched");
});
