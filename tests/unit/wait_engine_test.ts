/** Protects: the wait engine (one or several entries, any/all, the deadline, a run's end or loss, pending input). */
import assert from "assert";
import { RelayError } from "../../src/core/errors.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { spinGuard } from "../../testing/spin_guard.ts";
import type { Session } from "../../src/connect/connection.ts";
import type { Pending } from "../../src/elicit/router.ts";
import { buildReadResult } from "../../src/reply/mod.ts";
import type { ReadReplyResult } from "../../src/reply/schemas.ts";
import type { FinishedRun } from "../../src/turn/run_book.ts";
import { endedRead, type EntryEnd, waitResult } from "../../src/turn/run_result.ts";
import type { RunSnapshot } from "../../src/turn/run_book.ts";
import {
  type Asked,
  type FollowedRun,
  type Progress,
  type WaitEntry,
  waitOn,
  type WaitOptions,
  type WaitPorts,
} from "../../src/turn/wait_engine.ts";

const THREAD = "01a22a5c-6698-7df3-813e-7166a248c477";
const OTHER = "01a22a5c-6698-7df3-813e-7166a248c999";
const TURN = "01a22a5c-66dd-7f43-a294-c1ac8dd820ae";
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** A followed run moved by hand: `change()` moves it and wakes its waiters; `waits` counts the engine's waits on it. */
class FakeRun implements FollowedRun {
  readonly id: string = crypto.randomUUID();
  version = 0;
  ended = false;
  lost = false;
  notes: string[] = [];
  requests: Pending[] = [];
  waits = 0;
  readonly clientMessageId: string;
  #waiters = new Set<() => void>();
  #armed: (() => void)[] = [];

  constructor(readonly clock: ManualClock, clientMessageId = "c1") {
    this.clientMessageId = clientMessageId;
  }

  snapshot(): RunSnapshot {
    return {
      threadId: THREAD,
      clientMessageId: this.clientMessageId,
      turnId: TURN,
      phase: this.ended ? "completed" : "running",
      itemsCompleted: 0,
      declinedRequests: [],
      queuedAhead: [],
      notes: [...this.notes],
    };
  }

  progressSince(from: number): string[] {
    return this.notes.slice(from);
  }

  waitForChange(seen: number, untilMs: number, signal: AbortSignal): Promise<void> {
    this.waits++;
    if (this.version !== seen || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        timer.cancel();
        this.#waiters.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = this.clock.after(untilMs - this.clock.now(), done);
      this.#waiters.add(done);
      signal.addEventListener("abort", done, { once: true });
      for (const armed of this.#armed.splice(0)) armed();
    });
  }

  /** Resolves when the engine next waits on this run. */
  waiting(): Promise<void> {
    return new Promise((resolve) => this.#armed.push(resolve));
  }

  change(move: (run: FakeRun) => void): void {
    move(this);
    this.version++;
    for (const waiter of [...this.#waiters]) waiter();
  }
}

const finished = (run: FakeRun): FinishedRun => ({ snapshot: run.snapshot() });

function request(token: string): Pending {
  return {
    token,
    method: "item/commandExecution/requestApproval",
    forward: { kind: "form", message: "Run ls?", requestedSchema: {} },
    summary: "run ls",
  } as Pending;
}

function observed(clientMessageId: string, replies: string[]): ReadReplyResult {
  return buildReadResult({
    threadId: THREAD,
    clientMessageId,
    match: { kind: "observed", turnId: TURN, itemId: "u1" },
    turnStatus: replies.length ? "completed" : "running",
    replies: replies.map((text, i) => ({ itemId: `m${i}`, text, truncated: false })),
  });
}

const session: Session = {
  call: () => Promise.reject(new Error("no RPC in this test")),
  signal: new AbortController().signal,
  remainingMs: () => 1e9,
};

/** Options and ports with a manual clock (guarded: a wait that spins fails); what was reported and asked is recorded. */
function rig(clock: ManualClock, over: Partial<WaitOptions> = {}) {
  const reports: Progress[] = [];
  const asked: Asked[][] = [];
  let answer: "offered" | "spent" | "none" = "offered";
  let roundsOver = false;
  const options: WaitOptions = {
    clock: spinGuard(clock),
    signal: new AbortController().signal,
    log: quiet,
    timeoutMs: 10_000,
    until: "any",
    progress: "detail",
    fromStart: true,
    ...over,
  };
  const ports: WaitPorts<FakeRun> = {
    operation: (fn) => fn(session),
    read: () => Promise.reject(new Error("nothing is read")),
    readFollowed: (_run, ref) => Promise.resolve(observed(ref.clientMessageId, [])),
    settled: (run) => Promise.resolve(finished(run)),
    pending: (run) => run.requests.map((p) => ({ method: p.method, summary: p.summary })),
    askable: (run) => run.requests,
    report: (p) => Promise.resolve(void reports.push(p)),
    ask: (a) => {
      // Asking for nothing, again once a round was offered or spent, or over and over: a wait that loops.
      if (roundsOver || a.length === 0 || asked.length === 10) {
        return Promise.reject(new Error("asked after the last round"));
      }
      asked.push(a);
      roundsOver = answer !== "none";
      return Promise.resolve(answer);
    },
  };
  return { options, ports, reports, asked, answerWith: (a: typeof answer) => answer = a };
}

const kinds = (ends: EntryEnd[]) => ends.map((e) => e.kind);

Deno.test("waitOn() follows one run to its end: its notes from the start, then its settled end, final", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock);
  run.notes.push("Turn started");
  const { options, ports, reports } = rig(clock);
  const armed = run.waiting();
  const out = waitOn([{ run }], options, ports);
  await armed;
  run.change((r) => {
    r.notes.push("Ran ls");
    r.ended = true;
  });
  const done = await out;
  assert.equal(done.kind, "done");
  if (done.kind !== "done") return;
  assert.deepEqual(kinds(done.ends), ["settled"]);
  assert.deepEqual(reports, [
    { kind: "note", text: "Turn started", n: 1 },
    { kind: "note", text: "Ran ls", n: 2 },
  ]);
  assert.equal(waitResult(done.ends[0]).timedOut, false);
  assert.equal(clock.pending, 0, "no timer outlives the wait");
});

Deno.test("waitOn() on a retry reports only the run's new notes", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock);
  run.notes.push("Turn started");
  run.ended = true;
  const { options, ports, reports } = rig(clock, { fromStart: false });
  await waitOn([{ run }], options, ports);
  assert.deepEqual(reports, []);
});

Deno.test("waitOn() returns at the deadline with a run still running, as it stands, not final", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock);
  const { options, ports } = rig(clock, { timeoutMs: 3_000 });
  const armed = run.waiting();
  const out = waitOn([{ ref: { threadId: THREAD, clientMessageId: "c1" }, run }], options, ports);
  await armed;
  clock.advance(2_999);
  assert.equal(clock.now(), 2_999);
  clock.advance(1);
  const done = await out;
  if (done.kind !== "done") throw new Error("not done");
  const end = done.ends[0];
  assert.equal(end.kind, "running");
  if (end.kind !== "running") return;
  assert.equal(end.lost, undefined);
  assert.equal(end.read?.status, "observed", "a followed message is read once more");
  const result = waitResult(end);
  assert.equal(result.timedOut, true);
  assert.equal(clock.pending, 0);
});

Deno.test("waitOn() ends a lost run at once: final, unavailable (connection_lost) as a wait's result", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock);
  const { options, ports } = rig(clock);
  const armed = run.waiting();
  const out = waitOn([{ ref: { threadId: THREAD, clientMessageId: "c1" }, run }], options, ports);
  await armed;
  run.change((r) => r.lost = true);
  const done = await out;
  if (done.kind !== "done") throw new Error("not done");
  const end = done.ends[0];
  assert.ok(end.kind === "running" && end.lost);
  const result = waitResult(end);
  assert.deepEqual([result.status, result.reason, result.timedOut], [
    "unavailable",
    "connection_lost",
    false,
  ]);
  assert.equal(clock.now(), 0, "at once, not at the deadline");
});

Deno.test("waitOn() on several entries until any returns at the first final one; the others as they stand", async () => {
  const clock = new ManualClock();
  const a = new FakeRun(clock, "a");
  const b = new FakeRun(clock, "b");
  const { options, ports, reports } = rig(clock, { progress: "summary" });
  const armed = b.waiting();
  const out = waitOn([{ run: a }, { run: b }], options, ports);
  await armed;
  b.change((r) => r.ended = true);
  const done = await out;
  if (done.kind !== "done") throw new Error("not done");
  assert.deepEqual(kinds(done.ends), ["running", "settled"]);
  assert.deepEqual(reports.map((r) => r.kind === "summary" ? r.text : ""), [
    "0 of 2 done",
    "1 of 2 done",
  ]);
});

Deno.test("waitOn() on several entries until all waits for the last", async () => {
  const clock = new ManualClock();
  const a = new FakeRun(clock, "a");
  const b = new FakeRun(clock, "b");
  const { options, ports } = rig(clock, { progress: "summary", until: "all" });
  let armed = a.waiting();
  const out = waitOn([{ run: a }, { run: b }], options, ports);
  await armed;
  armed = a.waiting();
  b.change((r) => r.ended = true);
  await armed; // Still waiting: one of two is final.
  a.change((r) => r.ended = true);
  const done = await out;
  if (done.kind !== "done") throw new Error("not done");
  assert.deepEqual(kinds(done.ends), ["settled", "settled"]);
});

Deno.test("waitOn() ends an entry whose end is known before the wait at once", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock);
  const { options, ports } = rig(clock, { progress: "summary" });
  const entries: WaitEntry<FakeRun>[] = [
    {
      ref: { threadId: THREAD, clientMessageId: "gone" },
      end: { kind: "settled", run: finished(run) },
    },
    { run },
  ];
  const done = await waitOn(entries, options, ports);
  if (done.kind !== "done") throw new Error("not done");
  assert.deepEqual(kinds(done.ends), ["settled", "running"]);
  assert.equal(clock.now(), 0);
});

Deno.test("waitOn() offers the requests of every followed run, each tied to its run, and stops when offered", async () => {
  const clock = new ManualClock();
  const a = new FakeRun(clock, "a");
  const b = new FakeRun(clock, "b");
  a.requests.push(request("t1"));
  b.requests.push(request("t2"));
  const { options, ports, asked, reports } = rig(clock, { progress: "summary" });
  const out = await waitOn([{ run: a }, { run: b }], options, ports);
  assert.equal(out.kind, "offered");
  assert.deepEqual(asked[0].map((x) => [x.runId, x.request.token]), [[a.id, "t1"], [b.id, "t2"]]);
  assert.deepEqual(reports.map((r) => r.kind === "summary" ? r.text : ""), [
    "0 of 2 done; 2 waiting for approval",
  ]);
});

Deno.test("waitOn() with no round left returns the runs as they stand, with what they wait on", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock);
  run.requests.push(request("t1"));
  const { options, ports, answerWith } = rig(clock);
  answerWith("spent");
  const out = await waitOn([{ run }], options, ports);
  if (out.kind !== "done") throw new Error("not done");
  const end = out.ends[0];
  assert.ok(end.kind === "running");
  assert.deepEqual(end.pendingRequests, [{
    method: "item/commandExecution/requestApproval",
    summary: "run ls",
  }]);
});

Deno.test("waitOn() goes on waiting when none of the requests could be offered", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock);
  run.requests.push(request("t1"));
  const { options, ports, asked, answerWith } = rig(clock);
  answerWith("none");
  ports.askable = (r) => {
    const offered = r.requests;
    r.requests = []; // Declined: asked once.
    return offered;
  };
  const armed = run.waiting();
  const out = waitOn([{ run }], options, ports);
  await armed;
  run.change((r) => r.ended = true);
  const done = await out;
  assert.equal(done.kind, "done");
  assert.equal(asked.length, 1);
});

Deno.test("waitOn() reads a read message and follows a run in one wait: a final read ends it (any)", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock, "a");
  const { options, ports } = rig(clock, { progress: "summary" });
  const reads = [observed("b", []), observed("b", ["done"])];
  ports.read = () => Promise.resolve(reads.shift()!);
  const armed = run.waiting();
  const out = waitOn(
    [{ run }, { ref: { threadId: THREAD, clientMessageId: "b" } }],
    options,
    ports,
  );
  await armed;
  clock.advance(100); // The read's first pause (unwatched).
  const done = await out;
  if (done.kind !== "done") throw new Error("not done");
  assert.deepEqual(kinds(done.ends), ["running", "read"]);
  const read = waitResult(done.ends[1]);
  assert.deepEqual([read.timedOut, read.replies.length], [false, 1]);
  assert.equal(clock.now(), 100);
});

Deno.test("waitOn() gives a read message unavailable when its operation fails", async () => {
  const clock = new ManualClock();
  const { options, ports } = rig(clock);
  ports.operation = () => Promise.reject(new Error("boom"));
  const out = await waitOn([{ ref: { threadId: THREAD, clientMessageId: "b" } }], options, ports);
  if (out.kind !== "done") throw new Error("not done");
  const result = waitResult(out.ends[0]);
  assert.deepEqual([result.status, result.timedOut], ["unavailable", false]);
});

/** Resolves once every queued promise job ran: a wait that parks has parked by then (one that spins is ended by its run's guard first). */
const parked = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Reads that answer per message, in turn; the last answer of each repeats. */
function scripted(answers: Record<string, ReadReplyResult[]>) {
  const readsOf: Record<string, number> = {};
  const read = (_session: Session, ref: { clientMessageId: string }) => {
    const id = ref.clientMessageId;
    const list = answers[id];
    readsOf[id] = (readsOf[id] ?? 0) + 1;
    return Promise.resolve(list.length > 1 ? list.shift()! : list[0]);
  };
  return { read, readsOf };
}

Deno.test("waitOn() follows runs without an operation: a codex_run wait holds no connection", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock);
  const { options, ports } = rig(clock);
  ports.operation = () => Promise.reject(new Error("a run's wait opens no operation"));
  const armed = run.waiting();
  const out = waitOn([{ run }], options, ports);
  await armed;
  run.change((r) => r.ended = true);
  const done = await out;
  if (done.kind !== "done") throw new Error("not done");
  assert.deepEqual(kinds(done.ends), ["settled"]);
});

Deno.test("waitOn() on a run returns at once when the call is aborted: the run as it stands, not final", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock);
  run.notes.push("Turn started");
  const call = new AbortController();
  const { options, ports, reports } = rig(clock, { signal: call.signal });
  const armed = run.waiting();
  const out = waitOn([{ run }], options, ports);
  await armed;
  call.abort();
  const done = await out;
  if (done.kind !== "done") throw new Error("not done");
  assert.deepEqual(kinds(done.ends), ["running"]);
  assert.equal(waitResult(done.ends[0]).timedOut, true);
  assert.deepEqual(reports, [{ kind: "note", text: "Turn started", n: 1 }]);
  assert.equal(clock.now(), 0);
  assert.equal(clock.pending, 0, "no timer outlives the wait");
});

Deno.test("waitOn() returns a run without a message at the deadline as it stands, reading nothing", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock);
  const { options, ports } = rig(clock, { timeoutMs: 1_000 });
  let followedReads = 0;
  const readFollowed = ports.readFollowed;
  ports.readFollowed = (r, ref) => (followedReads++, readFollowed(r, ref));
  const armed = run.waiting();
  const out = waitOn([{ run }], options, ports);
  await armed;
  clock.advance(1_000);
  const done = await out;
  if (done.kind !== "done") throw new Error("not done");
  const end = done.ends[0];
  assert.ok(end.kind === "running" && end.read === undefined);
  assert.equal(followedReads, 0);
  const result = waitResult(end);
  assert.deepEqual([result.status, result.reason, result.timedOut], [
    "unavailable",
    "timeout",
    true,
  ]);
});

Deno.test("waitOn() at the deadline gives a followed message whose last read fails unavailable, with the read's reason", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock);
  const { options, ports } = rig(clock, { timeoutMs: 1_000 });
  ports.readFollowed = () => Promise.reject(new RelayError("rpc_error", "the read failed"));
  const armed = run.waiting();
  const out = waitOn([{ ref: { threadId: THREAD, clientMessageId: "c1" }, run }], options, ports);
  await armed;
  clock.advance(1_000);
  const done = await out;
  if (done.kind !== "done") throw new Error("not done");
  const end = done.ends[0];
  assert.equal(end.kind, "running");
  const result = waitResult(end);
  assert.deepEqual([result.status, result.reason, result.timedOut], [
    "unavailable",
    "rpc_error",
    true,
  ]);
  assert.equal(result.threadId, THREAD);
});

Deno.test("waitOn() on several entries sends only the count, once each time it changes, numbered; no notes or reads; it sleeps until something happens", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock, "r");
  const { read } = scripted({
    a: [observed("a", []), observed("a", ["done"])],
    b: [observed("b", []), observed("b", []), observed("b", ["done"])],
  });
  const { options, ports, reports } = rig(clock, { progress: "summary", until: "all" });
  ports.read = read;
  let armed = run.waiting();
  const out = waitOn(
    [
      { ref: { threadId: THREAD, clientMessageId: "a" } },
      { ref: { threadId: THREAD, clientMessageId: "b" } },
      { run },
    ],
    options,
    ports,
  );
  await armed; // Read at 0: neither is final.
  armed = run.waiting();
  clock.advance(100); // Read at 100: a is final.
  await armed;
  armed = run.waiting();
  run.change((r) => r.notes.push("Ran ls")); // A note: the count stays.
  await armed;
  await parked();
  assert.equal(run.waits, 3, "one wait on the run per change or read");
  armed = run.waiting();
  clock.advance(200); // Read at 300: b is final; only the run is left.
  await armed;
  clock.advance(1_000); // Past when a read would have been due: none is left to read.
  run.change((r) => r.ended = true);
  const done = await out;
  if (done.kind !== "done") throw new Error("not done");
  assert.deepEqual(kinds(done.ends), ["read", "read", "settled"]);
  assert.deepEqual(done.ends.map((e) => waitResult(e).timedOut), [false, false, false]);
  assert.deepEqual(reports, [
    { kind: "summary", text: "0 of 3 done", n: 1 },
    { kind: "summary", text: "1 of 3 done", n: 2 },
    { kind: "summary", text: "2 of 3 done", n: 3 },
    { kind: "summary", text: "3 of 3 done", n: 4 },
  ]);
  assert.equal(run.waits, 4);
  assert.equal(clock.pending, 0);
});

Deno.test("waitOn() watches the threads of the messages it reads, not those of the runs it follows", async () => {
  const clock = new ManualClock();
  const run = new FakeRun(clock, "a");
  const { read, readsOf } = scripted({ b: [observed("b", [])] });
  const { options, ports } = rig(clock, { progress: "summary" });
  ports.read = read;
  const watchers = new Map<string, (method: string, params: unknown) => void>();
  ports.operation = (fn) =>
    fn({
      ...session,
      watch: (threadId, onNotification) => {
        watchers.set(threadId, onNotification);
        return () => watchers.delete(threadId);
      },
    });
  let armed = run.waiting();
  const out = waitOn(
    [
      { ref: { threadId: THREAD, clientMessageId: "a" }, run },
      { ref: { threadId: OTHER, clientMessageId: "b" } },
    ],
    options,
    ports,
  );
  await armed;
  armed = run.waiting();
  watchers.get(THREAD)?.("turn/completed", {}); // The followed message's thread: no wake.
  watchers.get(OTHER)!("turn/completed", {}); // The read message's thread wakes it.
  await armed;
  assert.equal(readsOf.b, 2, "read once more, on the read message's wake only");
  run.change((r) => r.ended = true);
  const done = await out;
  if (done.kind !== "done") throw new Error("not done");
  assert.deepEqual(kinds(done.ends), ["settled", "read"]);
  assert.equal(watchers.size, 0, "the watch ends with the wait");
});

Deno.test("endedRead() answers an ended run with the end it saw where the read cannot tell it, and never overrides a read that can", () => {
  const scope = { threadId: THREAD, clientMessageId: "c1" };
  const snapshot = (phase: RunSnapshot["phase"], turnId: string | null = "t1"): RunSnapshot => ({
    ...scope,
    turnId,
    phase,
    itemsCompleted: 0,
    declinedRequests: [],
    queuedAhead: [],
    notes: [],
  });
  const read = (turnStatus: string) =>
    buildReadResult(
      {
        ...scope,
        match: { kind: "observed", turnId: "t1", itemId: "" },
        turnStatus,
      } as Parameters<typeof buildReadResult>[0],
    );
  const status = (run: FinishedRun) => endedRead(run).turn?.status;
  // The relay counted the turn interrupted (Codex did not confirm): a read still sees it running.
  assert.equal(
    status({ snapshot: snapshot("interrupted"), replies: read("running") }),
    "interrupted",
  );
  assert.equal(status({ snapshot: snapshot("failed"), replies: read("unverified") }), "failed");
  assert.equal(
    status({ snapshot: snapshot("interrupted"), replies: read("completed") }),
    "completed",
  );
  assert.equal(status({ snapshot: snapshot("running"), replies: read("running") }), "running");
  // No replies (its app-server was lost with it): the end the run saw, or unavailable before a turn.
  assert.equal(status({ snapshot: snapshot("failed") }), "failed");
  assert.equal(status({ snapshot: snapshot("running") }), "unverified");
  const none = endedRead({ snapshot: snapshot("failed", null) });
  assert.deepEqual([none.status, none.reason], ["unavailable", "connection_lost"]);
});
