/**
 * The run book (`src/turn/run_book.ts`) and a run's states
 * (`src/turn/run_state.ts`): one run per thread decided at once, what one look
 * at this relay's runs shows, the rule that an ended run is listed by the first
 * look after its end and by no later one (within its bound), a lost run listed
 * with since when, and the finished runs kept for followers.
 */

import assert from "assert";
import { FINISHED_TTL_MS, RunBook, UNSEEN_MAX } from "../../src/turn/run_book.ts";
import { advance, phaseOf, type RunState } from "../../src/turn/run_state.ts";
import { ManualClock } from "../../testing/manual_clock.ts";

const T0 = Date.parse("2026-12-01T10:00:00.000Z");

function book(wall: { now: number } = { now: T0 }) {
  const clock = new ManualClock();
  return { clock, book: new RunBook(clock, () => wall.now) };
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

Deno.test("RunBook.begin() gives a thread one live run: a second begin is refused until the first is final", () => {
  const { book: b } = book();
  const first = b.begin("t1", "m1");
  assert.ok(first);
  assert.equal(b.begin("t1", "m2"), undefined, "turn_running");
  assert.ok(b.begin("t2", "m3"), "another thread");
  b.move(first, { kind: "ended", end: "interrupted" });
  assert.ok(b.begin("t1", "m4"), "after the end");
});

Deno.test("a live run is listed with its state and startedAt; pending requests make it waiting_for_approval with the count", () => {
  const wall = { now: T0 };
  const { book: b } = book(wall);
  const a = b.begin("thread-a", "msg-a")!;
  b.move(a, { kind: "turnStarted" });
  wall.now += 5_000;
  const c = b.begin("thread-b", "msg-b")!;
  b.move(c, { kind: "turnStarted" });
  b.begin("thread-c", "msg-c");
  assert.deepEqual(b.look((r) => r.id === c.id ? 2 : 0), [
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
  const { book: b } = book();
  const a = b.begin("thread-a", "msg-a")!;
  b.move(a, { kind: "ended", end: "failed" });
  assert.deepEqual(b.look(() => 1), [
    {
      threadId: "thread-a",
      clientMessageId: "msg-a",
      state: "failed",
      startedAt: "2026-12-01T10:00:00.000Z",
    },
  ]);
  assert.deepEqual(b.look(() => 0), [], "not by a later look");
});

Deno.test("a forgotten run (its start failed) is not listed", () => {
  const { book: b } = book();
  const a = b.begin("thread-a", "msg-a")!;
  b.forget(a);
  assert.deepEqual(b.look(() => 0), []);
  assert.equal(b.live("thread-a"), undefined);
});

Deno.test("a lost run is listed lost with since when by every look, until the same message is followed again", () => {
  const wall = { now: T0 };
  const { book: b } = book(wall);
  const a = b.begin("thread-a", "msg-a")!;
  b.move(a, { kind: "turnStarted" });
  b.move(a, { kind: "lost", at: T0 + 7_000 });
  const lost = {
    threadId: "thread-a",
    clientMessageId: "msg-a",
    state: "lost",
    startedAt: "2026-12-01T10:00:00.000Z",
    lostAt: "2026-12-01T10:00:07.000Z",
  };
  assert.deepEqual(b.look(() => 0), [lost]);
  assert.deepEqual(b.look(() => 0), [lost], "again");
  assert.equal(b.live("thread-a"), undefined, "no live run: a follower may attach");
  b.begin("thread-a", "msg-a", { kind: "running" });
  assert.deepEqual(b.look(() => 0).map((r) => r.state), ["running"]);
});

Deno.test(`at most ${UNSEEN_MAX} ended runs wait for a look: at the bound all are listed, past it the oldest is dropped`, () => {
  const { book: b } = book();
  const end = (i: number) =>
    b.move(b.begin(`t${i}`, `msg-${i}`)!, { kind: "ended", end: "completed" });
  for (let i = 0; i < UNSEEN_MAX; i++) end(i);
  assert.equal(b.look(() => 0).length, UNSEEN_MAX);
  for (let i = 0; i <= UNSEEN_MAX; i++) end(i);
  const past = b.look(() => 0);
  assert.equal(past.length, UNSEEN_MAX);
  assert.equal(past[0].clientMessageId, "msg-1", "the oldest (msg-0) was dropped");
  assert.equal(past.at(-1)!.clientMessageId, `msg-${UNSEEN_MAX}`);
});

Deno.test("a finished run is kept for followers for the TTL, then forgotten", async () => {
  const { book: b, clock } = book();
  const a = b.begin("t", "m")!;
  b.move(a, { kind: "ended", end: "completed" });
  b.settle(a, { snapshot: snapshot("t", "m") });
  assert.equal((await a.settled).snapshot.phase, "completed");
  assert.ok(b.finished("t", "m"));
  clock.advance(FINISHED_TTL_MS + 1);
  assert.equal(b.finished("t", "m"), undefined);
});
