/**
 * The run book (`src/turn/run_book.ts`) and a run's states
 * (`src/turn/run_state.ts`): one run per thread decided at once, what one look
 * at this relay's runs shows, the rule that an ended run is listed by the first
 * look after its end and by no later one (within its bound), a lost run listed
 * with since when, and the finished runs kept for followers.
 */

import assert from "assert";
import {
  FINISHED_MAX,
  FINISHED_TTL_MS,
  recordPart,
  type Run,
  RunBook,
  UNSEEN_MAX,
} from "../../src/turn/run_book.ts";
import {
  advance,
  CANCELLED_START,
  failureOf,
  phaseOf,
  type RunState,
} from "../../src/turn/run_state.ts";
import { ManualClock } from "../../testing/manual_clock.ts";

const T0 = Date.parse("2026-12-01T10:00:00.000Z");
const STALLED = { failureClass: "stalled", retryable: true } as const;

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
  assert.equal(phaseOf({ kind: "queued" }), "queued");
  assert.equal(phaseOf({ kind: "running" }), "running");
  assert.equal(phaseOf({ kind: "ended", end: "interrupted" }), "interrupted");
  assert.deepEqual(advance({ kind: "queued" }, { kind: "writing" }), { kind: "queued" });
  assert.match(
    CANCELLED_START,
    /^codex_interrupt cancelled the run before its message was queued$/,
  );
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

Deno.test("a settled run keeps its end, never its handle (a runtime holds its helper's connection: issue 46)", async () => {
  const { book: b } = book();
  const run = b.begin("t1", "m1", { kind: "queued" })!;
  run.handle = "runtime 1";
  run.move({ kind: "ended", end: "completed" });
  b.settle(run, { snapshot: snapshot("t1", "m1") });
  assert.equal(run.handle, undefined);
  assert.equal(b.byId(run.id), undefined);
  assert.equal((await run.settled).snapshot.clientMessageId, "m1");
  assert.equal(b.finished("t1", "m1")?.snapshot.threadId, "t1", "its end is kept for followers");
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
  const queued = b.begin("thread-c", "msg-c")!;
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
  waiting = queued.id;
  assert.deepEqual(
    b.look().at(-1),
    {
      threadId: "thread-c",
      clientMessageId: "msg-c",
      state: "queued",
      pendingRequests: 2,
      startedAt: "2026-12-01T10:00:05.000Z",
    },
    "requests of a run still queued (an earlier turn's, on its connection): queued, with the count",
  );
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

Deno.test("a run that attached again to a lost run's turn and is forgotten (its attach failed) leaves that run lost, found by its message within the TTL", () => {
  const { book: b, clock } = book();
  const a = b.begin("thread-a", "msg-a", undefined, { kind: "compact" })!;
  a.move({ kind: "turnStarted" });
  a.move({ kind: "lost", at: T0 + 7_000 });
  assert.equal(b.lostRun("thread-a", "msg-a"), a);
  assert.equal(b.lostRun("thread-a", "msg-b"), undefined);
  assert.equal(b.lostRun("thread-b", "msg-a"), undefined, "the same id on another thread");
  const again = b.begin("thread-a", "msg-a", { kind: "running" }, a.job)!;
  assert.equal(b.lostRun("thread-a", "msg-a"), undefined, "superseded");
  b.forget(again);
  assert.equal(b.lostRun("thread-a", "msg-a"), a);
  assert.deepEqual(b.look().map((r) => [r.clientMessageId, r.state]), [["msg-a", "lost"]]);
  clock.advance(FINISHED_TTL_MS);
  assert.equal(b.lostRun("thread-a", "msg-a"), a, "within the TTL");
  clock.advance(1);
  assert.equal(b.lostRun("thread-a", "msg-a"), undefined, "past it");
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

/** Whether `p` has settled once the microtasks queued now have run (no timers). */
async function settledNow(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(() => settled = true, () => settled = true);
  for (let i = 0; i < 3; i++) await Promise.resolve();
  return settled;
}

Deno.test("a run has started once it is no longer starting: queued, attached running, or given up", async () => {
  const { book: b } = book();
  const a = b.begin("t1", "m1")!;
  a.move({ kind: "writing" });
  assert.equal(await settledNow(a.started), false, "still starting while its message is sent");
  a.move({ kind: "queued" });
  assert.equal(await settledNow(a.started), true);
  assert.equal(await settledNow(b.begin("t2", "m2", { kind: "running" })!.started), true);
  assert.equal(await settledNow(b.begin("t3", "m3")!.started), false);
  const d = b.begin("t4", "m4")!;
  b.forget(d);
  assert.equal(await settledNow(d.started), true, "a forgotten start is given up");
  assert.equal(await settledNow(d.settled), false, "forgotten without an end: nothing to wait for");
  const e = b.begin("t5", "m5")!;
  b.forget(e, { snapshot: snapshot("t5", "m5") });
  assert.equal((await e.settled).snapshot.clientMessageId, "m5");
});

Deno.test("the book's views: a handle by id, the live runs, the threads with a queued or running run", () => {
  const { book: b } = book();
  const a = b.begin("t1", "m1")!;
  a.handle = "handle-a";
  a.move({ kind: "ended", end: "completed" });
  b.begin("t2", "m2")!.move({ kind: "queued" });
  b.begin("t3", "m3");
  assert.equal(b.byId(a.id), "handle-a", "an ended run's handle, while it is kept");
  assert.equal(b.byId("no-such-run"), undefined);
  assert.deepEqual(b.lives().map((r) => r.threadId), ["t2", "t3"]);
  assert.deepEqual([...b.runningThreads()], ["t2"]);
});

Deno.test("ended runs are listed in the order they ended, and a late event after the end changes nothing", () => {
  const { book: b, clock } = book();
  const a = b.begin("ta", "ma")!;
  const c = b.begin("tc", "mc")!;
  const d = b.begin("td", "md")!;
  c.move({ kind: "ended", end: "completed" });
  clock.advance(1_000);
  a.move({ kind: "ended", end: "failed" });
  d.move({ kind: "ended", end: "interrupted" });
  c.move({ kind: "ended", end: "interrupted" }); // Late: c stays the first to end.
  assert.deepEqual(b.look().map((r) => [r.clientMessageId, r.state]), [
    ["mc", "completed"],
    ["ma", "failed"],
    ["md", "interrupted"],
  ]);
  b.settle(c, { snapshot: snapshot("tc", "mc") });
  clock.advance(FINISHED_TTL_MS);
  c.move({ kind: "ended", end: "completed" }); // Late: the TTL still counts from its end.
  assert.equal(b.finished("tc", "mc"), undefined, "past the TTL since it ended");
});

Deno.test(`a finished run is kept ${FINISHED_TTL_MS / 60_000} minutes from its end, for its own message only`, () => {
  const { book: b, clock } = book();
  clock.advance(5_000);
  const a = b.begin("t", "m")!;
  a.move({ kind: "ended", end: "completed" });
  b.settle(a, { snapshot: snapshot("t", "m") });
  b.begin("t", "m2")!.move({ kind: "ended", end: "completed" }); // Ended, not settled yet.
  assert.ok(b.finished("t", "m"));
  assert.equal(b.finished("t", "m2"), undefined, "not settled");
  assert.equal(b.finished("t", "other"), undefined);
  assert.equal(b.finished("other", "m"), undefined);
  const lost = b.begin("t2", "m")!;
  lost.move({ kind: "turnStarted" });
  lost.move({ kind: "lost", at: T0 });
  b.settle(lost, { snapshot: snapshot("t2", "m") });
  assert.equal(b.finished("t2", "m"), undefined, "a lost run has no end to report");
  clock.advance(10 * 60 * 1000);
  assert.ok(b.finished("t", "m"), "at exactly ten minutes");
  clock.advance(1);
  assert.equal(b.finished("t", "m"), undefined);
});

Deno.test("a lost run is listed until the TTL passed; following it again supersedes only its own lost record", () => {
  const { book: b, clock } = book();
  const lose = (thread: string, message: string) => {
    const r = b.begin(thread, message)!;
    r.move({ kind: "turnStarted" });
    r.move({ kind: "lost", at: T0 });
    return r;
  };
  lose("ta", "m");
  lose("tb", "m");
  b.begin("ta", "x", { kind: "running" })!.move({ kind: "lost", at: T0 });
  const ended = b.begin("ta", "m2")!;
  ended.move({ kind: "ended", end: "completed" });
  b.begin("ta", "m2", { kind: "running" }); // The same message as an ended run: that run stays.
  b.begin("ta", "m", { kind: "running" }); // Refused (ta has a live run): nothing is superseded.
  const listed = () => b.look().map((r) => `${r.threadId}/${r.clientMessageId}/${r.state}`).sort();
  assert.deepEqual(listed(), [
    "ta/m/lost",
    "ta/m2/completed",
    "ta/m2/running",
    "ta/x/lost",
    "tb/m/lost",
  ]);
  b.run("ta")!.move({ kind: "ended", end: "completed" });
  b.begin("ta", "m", { kind: "running" }); // Followed again: its own lost record goes.
  assert.deepEqual(listed(), ["ta/m/running", "ta/m2/completed", "ta/x/lost", "tb/m/lost"]);
  b.run("ta")!.move({ kind: "lost", at: T0 });
  assert.deepEqual(listed(), ["ta/m/lost", "ta/x/lost", "tb/m/lost"]);
  clock.advance(FINISHED_TTL_MS);
  assert.deepEqual(listed(), ["ta/m/lost", "ta/x/lost", "tb/m/lost"]);
  clock.advance(1);
  assert.deepEqual(listed(), [], "past the TTL a lost run is no longer listed");
});

Deno.test(`at most ${FINISHED_MAX} finished runs are kept for followers: the oldest listed one goes first`, () => {
  const { book: b } = book();
  const end = (i: number) => {
    const r = b.begin(`t${i}`, `m${i}`)!;
    r.move({ kind: "ended", end: "completed" });
    b.settle(r, { snapshot: snapshot(`t${i}`, `m${i}`) });
  };
  for (let i = 0; i < FINISHED_MAX; i++) end(i);
  b.look();
  assert.ok(b.finished("t0", "m0"), `${FINISHED_MAX} are kept`);
  end(FINISHED_MAX);
  assert.equal(b.finished("t0", "m0"), undefined, "the oldest went");
  assert.ok(b.finished("t1", "m1"));
  assert.deepEqual(b.look().map((r) => r.clientMessageId), [`m${FINISHED_MAX}`]);
});

Deno.test("past the TTL a final run is forgotten (no handle by its id), but an ended one unseen is still listed once", () => {
  const { book: b, clock } = book();
  const seen = b.begin("t1", "m1")!;
  seen.handle = "h1";
  seen.move({ kind: "ended", end: "completed" });
  b.look();
  const lost = b.begin("t2", "m2", { kind: "running" })!;
  lost.handle = "h2";
  lost.move({ kind: "lost", at: T0 });
  const unseen = b.begin("t3", "m3")!;
  unseen.move({ kind: "ended", end: "failed" });
  clock.advance(FINISHED_TTL_MS + 1);
  b.begin("t4", "m4")!.move({ kind: "ended", end: "completed" }); // Its end drops what nobody needs.
  assert.deepEqual(b.look().map((r) => r.clientMessageId), ["m3", "m4"]);
  assert.equal(b.byId(seen.id), undefined);
  assert.equal(b.byId(lost.id), undefined);
});

Deno.test(`a lost run stays listed however many runs end after it (${FINISHED_MAX} and more)`, () => {
  const { book: b } = book();
  b.begin("lost", "m", { kind: "running" })!.move({ kind: "lost", at: T0 });
  for (let i = 0; i <= FINISHED_MAX; i++) {
    const r = b.begin(`t${i}`, `m${i}`)!;
    r.move({ kind: "ended", end: "completed" });
    b.settle(r, { snapshot: snapshot(`t${i}`, `m${i}`) });
  }
  assert.equal(b.look().filter((r) => r.state === "lost").length, 1);
  assert.equal(b.look().filter((r) => r.state === "lost").length, 1);
});

Deno.test("a run's destination is a fact of its record: a worktree run is listed with its worktree (lost too), and its record part names it", () => {
  const { book: b } = book();
  const worktree = {
    name: "job",
    path: "/w/job",
    branch: "codex/job",
    base: "abc",
    uncommittedLeftOut: false,
  };
  const git = () => Promise.resolve({ code: 0, stdout: "", stderr: "" });
  const destination = { kind: "worktree", cwd: "/w/job/sub", worktree, git } as const;
  const a = b.begin("thread-a", "msg-a", undefined, undefined, destination)!;
  const plain = b.begin("thread-b", "msg-b", undefined, undefined, { kind: "cwd", cwd: "/r" })!;
  assert.equal(a.destination, destination);
  assert.deepEqual(b.begin("thread-c", "msg-c")!.destination, { kind: "thread" });
  a.move({ kind: "turnStarted" });
  const [listed, other] = b.look();
  assert.deepEqual(listed.worktree, worktree);
  assert.equal("worktree" in other, false, "a run in a cwd names none");
  a.move({ kind: "lost", at: T0 });
  assert.deepEqual(b.look()[0].worktree, worktree);
  assert.deepEqual(recordPart(a), {
    threadId: "thread-a",
    clientMessageId: "msg-a",
    phase: "running",
    failure: undefined,
    error: undefined,
    worktree,
  });
  plain.move({ kind: "ended", end: "failed", error: "boom", failure: STALLED });
  assert.deepEqual(recordPart(plain), {
    threadId: "thread-b",
    clientMessageId: "msg-b",
    phase: "failed",
    failure: STALLED,
    error: "boom",
  });
});
