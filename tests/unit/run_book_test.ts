/**
 * The run book (`src/turn/run_book.ts`) and a run's states
 * (`src/turn/run_state.ts`): one run per thread decided at once, what one look
 * at this relay's runs shows, the rule that an ended run is listed by the first
 * look after its end and by no later one (within its bound), a lost run listed
 * with since when, and the finished runs kept for followers.
 */

import assert from "assert";
import { FINISHED_TTL_MS, type Run, RunBook, UNSEEN_MAX } from "../../src/turn/run_book.ts";
import { advance, failureOf, phaseOf, type RunState } from "../../src/turn/run_state.ts";
import { ManualClock } from "../../testing/manual_clock.ts";

const T0 = Date.parse("2026-12-01T10:00:00.000Z");

/** A book on a manual clock; `pending` says how many requests of a run wait for the client. */
function book(wall: { now: number } = { now: T0 }, pending: (run: Run) => number = () => 0) {
  const clock = new ManualClock();
  return { clock, book: new RunBook(clock, () => wall.now, pending) };
}

const snapshot = (threadId: string, clientMessageId: string) => ({
  threadId,
  clientMessageId,
  turnId: "t",
  phase: "completed" as const,
  itemsCompleted: 0,
  declinedRequests: [],
  queuedAhead: [],
  notes: [],
});

Deno.test("advance() moves a run through its states and never out of a final one", () => {
  let s: RunState = { kind: "starting", writing: false };
  s = advance(s, { kind: "writing" });
  assert.deepEqual(s, { kind: "starting", writing: true });
  s = advance(s, { kind: "queued" });
  assert.deepEqual(s, { kind: "queued" });
  s = advance(s, { kind: "turnStarted" });
  assert.deepEqual(s, { kind: "running" });
  assert.deepEqual(advance(s, { kind: "queued" }), { kind: "running" }, "a late queued");
  const ended = advance(s, { kind: "ended", end: "failed" });
  assert.deepEqual(ended, { kind: "ended", end: "failed" });
  assert.deepEqual(advance(ended, { kind: "lost", at: 1 }), ended);
  assert.deepEqual(advance(s, { kind: "lost", at: 5 }), { kind: "lost", since: 5 });
  assert.deepEqual(
    advance({ kind: "starting", writing: false }, { kind: "lost", at: 5 }),
    { kind: "starting", writing: false },
    "a start has no turn to lose",
  );
  assert.equal(phaseOf({ kind: "starting", writing: true }), "queued");
  assert.equal(phaseOf({ kind: "lost", since: 1 }), "running");
});

Deno.test("a stall is kept by the live run through its start and loss; the end says how it failed, or not", () => {
  const stall = { failureClass: "stalled", retryable: true } as const;
  const other = { failureClass: "internal", retryable: false } as const;
  const starting: RunState = { kind: "starting", writing: false };
  assert.deepEqual(advance(starting, { kind: "stalled", failure: stall }), starting);
  const queued = advance({ kind: "queued" }, { kind: "stalled", failure: stall });
  assert.deepEqual(queued, { kind: "queued", stalled: stall });
  assert.deepEqual(
    advance(queued, { kind: "stalled", failure: other }),
    queued,
    "the first stall is the one kept",
  );
  const running = advance(queued, { kind: "turnStarted" });
  assert.deepEqual(running, { kind: "running", stalled: stall });
  assert.deepEqual(advance({ kind: "running" }, { kind: "stalled", failure: stall }), running);
  assert.equal(failureOf(running), stall);
  assert.deepEqual(advance(running, { kind: "lost", at: 7 }), {
    kind: "lost",
    since: 7,
    stalled: stall,
  });
  assert.equal(failureOf(advance(running, { kind: "lost", at: 7 })), stall);
  assert.deepEqual(advance({ kind: "running" }, { kind: "lost", at: 7 }), {
    kind: "lost",
    since: 7,
  });
  const ended = { kind: "ended", end: "failed", error: "boom", failure: other } as const;
  assert.deepEqual(advance(running, ended), ended);
  assert.equal(failureOf(ended), other, "an ended run's own failure, not the stall");
  assert.equal(failureOf({ kind: "ended", end: "completed" }), undefined);
  assert.equal(failureOf({ kind: "running" }), undefined);
  assert.equal(failureOf(starting), undefined);
  assert.deepEqual(
    advance({ kind: "ended", end: "completed" }, { kind: "stalled", failure: stall }),
    { kind: "ended", end: "completed" },
  );
});

Deno.test("RunBook.begin() gives a thread one live run: a second begin is refused until the first is final", () => {
  const { book: b } = book();
  const first = b.begin("t1", "m1");
  assert.ok(first);
  assert.equal(b.begin("t1", "m2"), undefined, "turn_running");
  assert.ok(b.begin("t2", "m3"), "another thread");
  first.move({ kind: "ended", end: "interrupted" });
  assert.ok(b.begin("t1", "m4"), "after the end");
});

Deno.test("RunBook's views: a thread's live run and its handle, a handle by id, the threads running; closing refuses begin", () => {
  const { book: b } = book();
  const queued = b.begin("t1", "m1", { kind: "queued" })!;
  const starting = b.begin("t2", "m2")!;
  queued.handle = "runtime 1";
  assert.equal(b.run("t1"), queued);
  assert.equal(b.run("t1")?.handle, "runtime 1");
  assert.equal(b.run("t2")?.handle, undefined, "no handle yet");
  assert.equal(b.byId(queued.id), "runtime 1");
  assert.deepEqual([...b.runningThreads()], ["t1"], "a run still starting runs nothing yet");
  assert.equal(b.lives().length, 2);
  b.forget(starting);
  starting.move({ kind: "ended", end: "failed" });
  assert.deepEqual(starting.state, { kind: "starting", writing: false }, "a forgotten run stays");
  b.close();
  assert.equal(b.begin("t3", "m3"), undefined, "closing");
  assert.ok(b.closing);
});

Deno.test("a live run is listed with its state and startedAt; pending requests make it waiting_for_approval with the count", () => {
  const wall = { now: T0 };
  let waiting = "";
  const { book: b } = book(wall, (r) => r.id === waiting ? 2 : 0);
  const a = b.begin("thread-a", "msg-a")!;
  a.move({ kind: "turnStarted" });
  wall.now += 5_000;
  const c = b.begin("thread-b", "msg-b")!;
  c.move({ kind: "turnStarted" });
  b.begin("thread-c", "msg-c");
  waiting = c.id;
  assert.deepEqual(b.look(), [
    {
      threadId: "thread-a",
      clientMessageId: "msg-a",
      state: "running",
      startedAt: "2026-12-01T10:00:00.000Z",
    },
    {
      threadId: "thread-b",
      clientMessageId: "msg-b",
      state: "waiting_for_approval",
      pendingRequests: 2,
      startedAt: "2026-12-01T10:00:05.000Z",
    },
    {
      threadId: "thread-c",
      clientMessageId: "msg-c",
      state: "queued",
      startedAt: "2026-12-01T10:00:05.000Z",
    },
  ]);
});

Deno.test("an ended run is listed by the next look only, with how it ended and when it started", () => {
  const { book: b } = book(undefined, () => 1);
  const a = b.begin("thread-a", "msg-a")!;
  a.move({ kind: "ended", end: "failed" });
  assert.deepEqual(b.look(), [
    {
      threadId: "thread-a",
      clientMessageId: "msg-a",
      state: "failed",
      startedAt: "2026-12-01T10:00:00.000Z",
    },
  ]);
  assert.deepEqual(b.look(), [], "not by a later look");
});

Deno.test("a forgotten run (its start failed) is not listed", () => {
  const { book: b } = book();
  const a = b.begin("thread-a", "msg-a")!;
  b.forget(a);
  assert.deepEqual(b.look(), []);
  assert.equal(b.run("thread-a"), undefined);
});

Deno.test("a lost run is listed lost with since when by every look, until the same message is followed again", () => {
  const wall = { now: T0 };
  const { book: b } = book(wall);
  const a = b.begin("thread-a", "msg-a")!;
  a.move({ kind: "turnStarted" });
  a.move({ kind: "lost", at: T0 + 7_000 });
  const lost = {
    threadId: "thread-a",
    clientMessageId: "msg-a",
    state: "lost",
    startedAt: "2026-12-01T10:00:00.000Z",
    lostAt: "2026-12-01T10:00:07.000Z",
  };
  assert.deepEqual(b.look(), [lost]);
  assert.deepEqual(b.look(), [lost], "again");
  assert.equal(b.run("thread-a"), undefined, "no live run: a follower may attach");
  b.begin("thread-a", "msg-a", { kind: "running" });
  assert.deepEqual(b.look().map((r) => r.state), ["running"]);
});

Deno.test(`at most ${UNSEEN_MAX} ended runs wait for a look: at the bound all are listed, past it the oldest is dropped`, () => {
  const { book: b } = book();
  const end = (i: number) =>
    b.begin(`t${i}`, `msg-${i}`)!.move({ kind: "ended", end: "completed" });
  for (let i = 0; i < UNSEEN_MAX; i++) end(i);
  assert.equal(b.look().length, UNSEEN_MAX);
  for (let i = 0; i <= UNSEEN_MAX; i++) end(i);
  const past = b.look();
  assert.equal(past.length, UNSEEN_MAX);
  assert.equal(past[0].clientMessageId, "msg-1", "the oldest (msg-0) was dropped");
  assert.equal(past.at(-1)!.clientMessageId, `msg-${UNSEEN_MAX}`);
});

Deno.test("a finished run is kept for followers for the TTL, then forgotten", async () => {
  const { book: b, clock } = book();
  const a = b.begin("t", "m")!;
  a.move({ kind: "ended", end: "completed" });
  b.settle(a, { snapshot: snapshot("t", "m") });
  assert.equal((await a.settled).snapshot.phase, "completed");
  assert.ok(b.finished("t", "m"));
  clock.advance(FINISHED_TTL_MS + 1);
  assert.equal(b.finished("t", "m"), undefined);
});
