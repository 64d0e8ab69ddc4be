/** Protects: codex_wait_reply on one message (turn/wait_pacing.ts through the wait engine): when a read ends it, the pacing of its reads, wakes, the not_found window, its deadline, abort. */
import assert from "assert";
import { systemClock } from "../../src/core/clock.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import type { Session } from "../../src/connect/connection.ts";
import { buildReadResult } from "../../src/reply/mod.ts";
import type { ObservedTurnStatus, ReadReplyResult } from "../../src/reply/schemas.ts";
import {
  isSettled,
  NOT_FOUND_CONFIRM_MS,
  notFoundSince,
  Pacing,
  pause,
  WAIT_BACKOFF,
  WAIT_SECONDS,
  Wake,
  WATCHED_BACKOFF,
} from "../../src/turn/wait_pacing.ts";
import { readWait } from "../../testing/read_wait.ts";
import type { ReadReplyInput } from "../../src/ops/read_reply.ts";

const SCOPE = { threadId: "01a22a5c-6698-7df3-813e-7166a248c477", clientMessageId: "c1" };
const TURN = "01a22a5c-66dd-7f43-a294-c1ac8dd820ae";

function observed(status: ObservedTurnStatus, texts: string[] = []): ReadReplyResult {
  return buildReadResult({
    ...SCOPE,
    match: { kind: "observed", turnId: TURN, itemId: "u1" },
    turnStatus: status,
    replies: texts.map((text, i) => ({ itemId: `m${i}`, text, truncated: false })),
  });
}

const noMatch = () => buildReadResult({ ...SCOPE, match: { kind: "no_match" } });

function fakeSession(signal = new AbortController().signal): Session {
  return {
    call: () => Promise.reject(new Error("no RPC in this test")),
    signal,
    remainingMs: () => 1e9,
  };
}

/** Lets the armed pause end on the clock; returns how long it was (one that never ends fails). */
function endPause(clock: ManualClock): number {
  const from = clock.now();
  for (let ms = 0; clock.pending > 0; ms++) {
    if (ms > 60_000) throw new Error("a pause that never ends");
    clock.advance(1);
  }
  return clock.now() - from;
}

/** A progress listener that lets the armed pause end, recording how long it was. */
function drive(clock: ManualClock, pauses: number[]) {
  return () => void pauses.push(endPause(clock));
}

Deno.test("isSettled() ends a wait on a final answer, a terminal turn, ambiguous or unavailable", () => {
  const cases: [ReadReplyResult, boolean][] = [
    [noMatch(), false],
    [observed("unverified"), false],
    [observed("running"), false],
    [observed("completed"), true],
    [observed("failed"), true],
    [observed("interrupted"), true],
    [observed("unverified", ["hi"]), true],
    [buildReadResult({ ...SCOPE, match: { kind: "ambiguous", count: 2 } }), true],
    [buildReadResult({ ...SCOPE, match: { kind: "unavailable", reason: "timeout" } }), true],
  ];
  for (const [result, settled] of cases) {
    assert.equal(isSettled(result, true, 0), settled, JSON.stringify(result));
  }
});

Deno.test("waitOn() on a read message unwatched: pauses 100 ms, then 200, then every 250 ms, and reads once more at the deadline", async () => {
  const clock = new ManualClock();
  const readsAt: number[] = [];
  const pauses: number[] = [];
  const out = await readWait(fakeSession(), { ...SCOPE, timeoutSeconds: 2 }, {
    clock,
    onProgress: drive(clock, pauses),
    read: () => {
      readsAt.push(clock.now());
      return Promise.resolve(observed("unverified"));
    },
  });
  assert.deepEqual(WAIT_BACKOFF, { initialMs: 100, maxMs: 250 });
  assert.deepEqual(pauses, [100, 200, 250, 250, 250, 250, 250, 250, 200]);
  assert.deepEqual(readsAt, [0, 100, 300, 550, 800, 1050, 1300, 1550, 1800, 2000]);
  // The cost bound: never more than 1000 / 250 = 4 reads a second once paced.
  const gaps = readsAt.slice(1).map((t, i) => t - readsAt[i]);
  assert.ok(gaps.slice(2, -1).every((g) => g === WAIT_BACKOFF.maxMs), String(gaps));
  assert.equal(out.timedOut, true);
  assert.equal(out.status, "observed");
  assert.equal(clock.pending, 0, "no timer outlives the wait");
});

Deno.test("waitOn() on a read message returns the read that settles it, not timed out", async () => {
  const clock = new ManualClock();
  const results = [noMatch(), observed("unverified"), observed("unverified", ["done"])];
  const seen: ReadReplyInput[] = [];
  const pauses: number[] = [];
  const out = await readWait(
    fakeSession(),
    { ...SCOPE, cursor: "abc", timeoutSeconds: 30 },
    {
      clock,
      onProgress: drive(clock, pauses),
      read: (_s, input) => {
        seen.push(input);
        return Promise.resolve(results.shift()!);
      },
    },
  );
  assert.equal(out.timedOut, false);
  assert.deepEqual(out.replies, [{ itemId: "m0", text: "done", truncated: false }]);
  assert.deepEqual(pauses, [100, 200]);
  assert.deepEqual(seen, [1, 2, 3].map(() => ({ ...SCOPE, cursor: "abc" })), "same request");
});

Deno.test("waitOn() on a read message reports progress without reply text, once per unsettled read", async () => {
  const clock = new ManualClock();
  const reports: { reads: number; elapsedMs: number; timeoutMs: number }[] = [];
  await readWait(fakeSession(), { ...SCOPE, timeoutSeconds: 1 }, {
    clock,
    onProgress: (p) => {
      reports.push({ reads: p.reads, elapsedMs: p.elapsedMs, timeoutMs: p.timeoutMs });
      endPause(clock);
    },
    read: () => Promise.resolve(observed("unverified")),
  });
  assert.deepEqual(reports, [
    { reads: 1, elapsedMs: 0, timeoutMs: 1000 },
    { reads: 2, elapsedMs: 100, timeoutMs: 1000 },
    { reads: 3, elapsedMs: 300, timeoutMs: 1000 },
    { reads: 4, elapsedMs: 550, timeoutMs: 1000 },
    { reads: 5, elapsedMs: 800, timeoutMs: 1000 },
  ]);
});

Deno.test("waitOn() on a read message stops a pause at once when the operation is aborted", async () => {
  const clock = new ManualClock();
  const controller = new AbortController();
  let reads = 0;
  const out = await readWait(fakeSession(controller.signal), { ...SCOPE, timeoutSeconds: 30 }, {
    clock,
    onProgress: () => controller.abort(),
    read: () => {
      reads++;
      return Promise.resolve(observed("unverified"));
    },
  });
  assert.equal(reads, 1);
  assert.equal(out.status, "unavailable");
  assert.equal(out.reason, "cancelled");
  assert.equal(out.timedOut, false);
  assert.deepEqual(out.replies, []);
  assert.equal(clock.pending, 0, "the pause's timer was cancelled");
});

/** A session that can watch: `notify` delivers a notification of a thread to its watchers. */
function watchingSession(signal?: AbortSignal) {
  const watchers = new Map<string, Set<(method: string, params: unknown) => void>>();
  const session: Session = {
    ...fakeSession(signal),
    watch: (threadId, fn) => {
      const set = watchers.get(threadId) ?? new Set();
      watchers.set(threadId, set);
      set.add(fn);
      return () => set.delete(fn);
    },
  };
  const notify = (threadId: string, method: string) => {
    for (const fn of watchers.get(threadId) ?? []) fn(method, { threadId });
  };
  const watching = () => [...watchers.values()].reduce((n, s) => n + s.size, 0);
  return { session, notify, watching };
}

Deno.test("waitOn() on a read message watched: the fallback pauses 250 ms doubling to 2 s", async () => {
  const clock = new ManualClock();
  const { session, watching } = watchingSession();
  const pauses: number[] = [];
  const out = await readWait(session, { ...SCOPE, timeoutSeconds: 6 }, {
    clock,
    onProgress: drive(clock, pauses),
    read: () => Promise.resolve(observed("running")),
  });
  assert.deepEqual(WATCHED_BACKOFF, { initialMs: 250, maxMs: 2000 });
  assert.deepEqual(pauses, [250, 500, 1000, 2000, 2000, 250]);
  assert.equal(out.timedOut, true);
  assert.equal(watching(), 0, "the watch ends with the wait");
});

Deno.test("waitOn() on a read message watched: a status change of the thread ends the pause at once and restarts the fallback", async () => {
  const clock = new ManualClock();
  const { session, notify } = watchingSession();
  const readsAt: number[] = [];
  const results = [observed("running"), observed("running"), observed("running")];
  let progress = 0;
  const out = await readWait(session, { ...SCOPE, timeoutSeconds: 30 }, {
    clock,
    onProgress: () => {
      progress++;
      if (progress === 1) {
        clock.advance(250); // The fallback read.
      } else if (progress === 2) {
        clock.advance(120);
        notify("other-thread", "thread/status/changed"); // Another thread: no wake.
        notify(SCOPE.threadId, "item/agentMessage/delta"); // A delta: no wake.
        assert.equal(readsAt.length, 2, "nothing woke the wait");
        notify(SCOPE.threadId, "thread/status/changed");
      } else clock.advance(250);
    },
    read: () => {
      readsAt.push(clock.now());
      return Promise.resolve(results.shift() ?? observed("completed", ["done"]));
    },
  });
  assert.equal(out.timedOut, false);
  assert.deepEqual(out.replies, [{ itemId: "m0", text: "done", truncated: false }]);
  // 0: first read; 250: the fallback; 370: woken 120 ms into the 500 ms pause;
  // the next pause starts at 250 again, not at 1000.
  assert.deepEqual(readsAt, [0, 250, 370, 620]);
});

Deno.test("waitOn() on a read message watched: a notification during a read skips the next pause", async () => {
  const clock = new ManualClock();
  const { session, notify } = watchingSession();
  const readsAt: number[] = [];
  let n = 0;
  const out = await readWait(session, { ...SCOPE, timeoutSeconds: 30 }, {
    clock,
    onProgress: () => {},
    read: () => {
      readsAt.push(clock.now());
      n++;
      if (n === 1) notify(SCOPE.threadId, "turn/completed");
      return Promise.resolve(n === 1 ? observed("running") : observed("completed"));
    },
  });
  assert.equal(out.timedOut, false);
  assert.deepEqual(readsAt, [0, 0], "read again at once");
  assert.equal(clock.pending, 0);
});

Deno.test("waitOn() on a read message watched: a turn running outside the watched connection is read at the unwatched pace", async () => {
  const clock = new ManualClock();
  const { session } = watchingSession();
  const pauses: number[] = [];
  await readWait(session, { ...SCOPE, timeoutSeconds: 1 }, {
    clock,
    onProgress: drive(clock, pauses),
    read: () => Promise.resolve(observed("unverified")),
  });
  assert.deepEqual(pauses, [100, 200, 250, 250, 200]);
});

Deno.test("waitOn() on a read message watched: a status change, a turn's start or end and a stored item wake it; a delta or another thread's news does not", async () => {
  const cases: [string, string, boolean][] = [
    [SCOPE.threadId, "thread/status/changed", true],
    [SCOPE.threadId, "turn/started", true],
    [SCOPE.threadId, "turn/completed", true],
    [SCOPE.threadId, "item/completed", true],
    [SCOPE.threadId, "item/agentMessage/delta", false],
    [SCOPE.threadId, "item/started", false],
    ["other-thread", "turn/completed", false],
  ];
  for (const [threadId, method, wakes] of cases) {
    const clock = new ManualClock();
    const { session, notify } = watchingSession();
    const pauses: number[] = [];
    const letPauseRun = drive(clock, pauses);
    await readWait(session, { ...SCOPE, timeoutSeconds: 1 }, {
      clock,
      onProgress: (p) => {
        if (p.reads === 1) notify(threadId, method);
        letPauseRun();
      },
      read: () => Promise.resolve(observed("running")),
    });
    // Woken: the first pause ends at once and the next starts from 250 ms again.
    assert.deepEqual(pauses.slice(0, 2), wakes ? [0, 250] : [250, 500], `${threadId} ${method}`);
  }
});

Deno.test("waitOn() on a read message paces every read with a backoff given, a watched turn running elsewhere too", async () => {
  const clock = new ManualClock();
  const { session } = watchingSession();
  const pauses: number[] = [];
  await readWait(session, { ...SCOPE, timeoutSeconds: 1 }, {
    clock,
    backoff: { initialMs: 300, maxMs: 400 },
    onProgress: drive(clock, pauses),
    read: () => Promise.resolve(observed("unverified")),
  });
  assert.deepEqual(pauses, [300, 400, 300]);
});

/** A signal that tracks the abort listeners added to it and not removed. */
function listenedSignal() {
  const signal = new AbortController().signal;
  const listening = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  Object.assign(signal, {
    addEventListener: (type: string, fn: EventListener, options?: AddEventListenerOptions) => {
      if (type === "abort") listening.add(fn);
      add(type, fn, options);
    },
    removeEventListener: (type: string, fn: EventListener) => {
      if (type === "abort") listening.delete(fn);
      remove(type, fn);
    },
  });
  return { signal, listening };
}

Deno.test("waitOn() on a read message listens on the operation's signal only while it pauses: one listener, none left", async () => {
  const clock = new ManualClock();
  const { signal, listening } = listenedSignal();
  const { session, notify } = watchingSession(signal);
  const during: number[] = [];
  let reads = 0;
  await readWait(session, { ...SCOPE, timeoutSeconds: 30 }, {
    clock,
    onProgress: (p) => {
      during.push(listening.size);
      if (p.reads === 1) clock.advance(250); // The first pause ends on its timer,
      else notify(SCOPE.threadId, "turn/completed"); // the second on a wake.
    },
    read: () => Promise.resolve(++reads < 3 ? observed("running") : observed("completed")),
  });
  assert.deepEqual(during, [1, 1]);
  assert.equal(listening.size, 0);
});

Deno.test("Wake counts every poke and calls the one current waiter once; a cancelled waiter never", () => {
  const wake = new Wake();
  const calls: string[] = [];
  const cancelFirst = wake.next(() => calls.push("first"));
  wake.next(() => calls.push("second")); // Replaces the first.
  cancelFirst(); // Too late to cancel the second.
  wake.poke();
  wake.poke(); // Nothing waits any more.
  const cancelThird = wake.next(() => calls.push("third"));
  cancelThird();
  wake.poke();
  assert.deepEqual(calls, ["second"]);
  assert.equal(wake.count, 3);
});

Deno.test("isSettled: a queued message ends a wait only where nothing could start it (unwatched, no turn running)", () => {
  const base = {
    threadId: "01a22a5c-6698-7df3-813e-7166a248c477",
    clientMessageId: "c1",
    turn: null,
    replies: [],
    nextCursor: null,
    searchCursor: null,
  };
  const idle = { ...base, status: "queued" as const, turnRunning: false };
  const busy = { ...base, status: "queued" as const, turnRunning: true };
  assert.equal(isSettled(idle, false, 0), true);
  assert.equal(isSettled(idle, true, 0), false, "a daemon may start it at once");
  assert.equal(isSettled(busy, false, 0), false, "it runs after the running turn");
  const notFound = { ...base, status: "not_found" as const };
  assert.equal(isSettled(notFound, true, 0), false, "Codex may be taking it from the queue");
  assert.equal(isSettled(notFound, true, NOT_FOUND_CONFIRM_MS - 1), false, "just under the bound");
  assert.equal(isSettled(notFound, true, NOT_FOUND_CONFIRM_MS), true, "missing that long ends it");
  assert.equal(isSettled(notFound, false, NOT_FOUND_CONFIRM_MS), true);
  assert.equal(notFoundSince(notFound, undefined, 7), 7, "a first not_found starts the streak");
  assert.equal(notFoundSince(notFound, 3, 7), 3, "a later one keeps its start");
  assert.equal(notFoundSince(idle, 3, 7), undefined, "any other read ends the streak");
  assert.equal(isSettled({ ...base, status: "no_match" }, false, 0), false);
});

Deno.test("waitOn() on a read message ends at not_found only once its reads said so for 500 ms in a row", async () => {
  const clock = new ManualClock();
  clock.advance(5_000); // The window counts from the streak's first read, not from the clock's start.
  const notFound = buildReadResult({ ...SCOPE, match: { kind: "not_found" } });
  const results = [notFound, noMatch(), notFound, notFound, notFound];
  const readsAt: number[] = [];
  const out = await readWait(fakeSession(), { ...SCOPE, timeoutSeconds: 30 }, {
    clock,
    onProgress: () => void endPause(clock),
    read: () => {
      readsAt.push(clock.now() - 5_000);
      return Promise.resolve(results.shift() ?? observed("completed", ["late"]));
    },
  });
  // Read at 0, 100, 300, 550, 800 (unwatched); the streak starts again at 300: 500 ms at 800.
  assert.deepEqual(readsAt, [0, 100, 300, 550, 800]);
  assert.deepEqual([out.status, out.timedOut], ["not_found", false]);
});

Deno.test("pause() resolves true after its time or at a wake, false at once when the signal is aborted or aborts", async () => {
  const clock = new ManualClock();
  const never = new AbortController().signal;
  const timed = pause(clock, 100, never, new Wake());
  clock.advance(99);
  const early = await Promise.race([timed, Promise.resolve("pending")]);
  assert.equal(early, "pending", "not before its time");
  clock.advance(1);
  assert.equal(await timed, true);

  const wake = new Wake();
  const woken = pause(clock, 10_000, never, wake);
  wake.poke();
  assert.equal(await woken, true);

  const aborted = new AbortController();
  aborted.abort();
  assert.equal(await pause(clock, 10_000, aborted.signal, new Wake()), false);

  const later = new AbortController();
  const cut = pause(clock, 10_000, later.signal, new Wake());
  later.abort();
  assert.equal(await cut, false);
  clock.advance(10_000);
});

Deno.test("Pacing.after() on a watched session uses the slow watched pacing, but the read pacing after a turn seen running elsewhere", () => {
  const base = {
    threadId: "01a22a5c-6698-7df3-813e-7166a248c477",
    clientMessageId: "c1",
    replies: [],
    nextCursor: null,
    searchCursor: null,
  };
  const running = {
    ...base,
    status: "observed" as const,
    association: "same_turn_not_exclusive" as const,
    turn: { id: "t", status: "running" as const },
  };
  const elsewhere = { ...running, turn: { id: "t", status: "unverified" as const } };
  assert.equal(new Pacing(true).after([running, undefined]), WATCHED_BACKOFF.initialMs);
  assert.equal(new Pacing(true).after([undefined, elsewhere]), WAIT_BACKOFF.initialMs);
  assert.equal(new Pacing(false).after([running]), WAIT_BACKOFF.initialMs);
});

Deno.test("codex_wait_reply bounds: 1..55 s per call, 30 by default", () => {
  assert.deepEqual({ ...WAIT_SECONDS }, { min: 1, max: 55, default: 30 });
});

Deno.test("waitOn() on a read message: without a cursor the request carries none; its deadline counts from its own start", async () => {
  const clock = new ManualClock();
  clock.advance(5_000); // The clock did not start with this wait.
  const seen: ReadReplyInput[] = [];
  const reports: number[] = [];
  const out = await readWait(fakeSession(), { ...SCOPE, timeoutSeconds: 1 }, {
    clock,
    onProgress: (p) => {
      reports.push(p.elapsedMs);
      endPause(clock);
    },
    read: (_s, input) => {
      seen.push(input);
      return Promise.resolve(observed("unverified"));
    },
  });
  assert.equal(out.timedOut, true);
  // WAIT_BACKOFF: 100 ms, then growing to at most 250 ms; a last read at the deadline.
  assert.deepEqual(reports, [0, 100, 300, 550, 800]);
  assert.equal(seen.length, 6);
  assert.deepEqual(seen[0], SCOPE);
  assert.ok(!("cursor" in seen[0]));
});

Deno.test("waitOn() on a read message: works without a progress listener", async () => {
  const out = await readWait(fakeSession(), { ...SCOPE, timeoutSeconds: 0.005 }, {
    clock: systemClock,
    backoff: { initialMs: 1, maxMs: 1 },
    read: () => Promise.resolve(observed("unverified")),
  });
  assert.equal(out.timedOut, true);
});

Deno.test("waitOn() on a read message: an operation aborted during a read does not pause or read again", async () => {
  const clock = new ManualClock();
  const controller = new AbortController();
  let reads = 0;
  const out = await readWait(fakeSession(controller.signal), { ...SCOPE, timeoutSeconds: 30 }, {
    clock,
    read: () => {
      reads++;
      controller.abort();
      return Promise.resolve(observed("unverified"));
    },
  });
  assert.equal(reads, 1);
  assert.deepEqual([out.status, out.reason, out.timedOut], ["unavailable", "cancelled", false]);
  assert.equal(clock.pending, 0);
});
