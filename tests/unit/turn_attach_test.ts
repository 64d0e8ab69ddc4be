import assert from "assert";
import {
  type CallOptions,
  type Connection,
  type HeldConnection,
  typedCall,
} from "../../src/connect/connection.ts";
import { RelayError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/log.ts";
import {
  ATTACH_BUDGET_MS,
  attachTurn,
  locateMessage,
  STATUS_PAGES,
} from "../../src/turn/turn_attach.ts";
import type { TurnRegistry } from "../../src/turn/turn_registry.ts";
import type { TurnRuntime } from "../../src/turn/turn_runtime.ts";
import { ManualClock } from "../../testing/manual_clock.ts";

const THREAD = "01a22a5b-0000-7000-8000-000000000001";
const OTHER = "01a22a5b-0000-7000-8000-000000000002";
type Params = Record<string, unknown>;
type Answer = (method: string, params: Params, n: number) => unknown;

const entry = (id: string, type: string) => ({
  id,
  name: null,
  status: { type },
  updatedAt: 1796006982,
});
const listOf = (type: string) => ({
  data: [entry(OTHER, "idle"), entry(THREAD, type)],
  nextCursor: null,
});
const turn = (id: string, status: string, completedAt: number | null, error: unknown = null) => ({
  id,
  items: [],
  itemsView: "notLoaded",
  status,
  error,
  startedAt: 1796006982,
  completedAt,
  durationMs: null,
});

/** A lost run of the registry: its job, and what its runtime saw (its turn, its usage). */
interface Lost {
  threadId: string;
  clientMessageId: string;
  job: { kind: string };
  handle?: { snapshot: () => { turnId: string | null; usage?: { totalTokens: number } } };
}
const lostRun = (kind: string, turnId: string | null, totalTokens?: number): Lost => ({
  threadId: THREAD,
  clientMessageId: "m",
  job: { kind },
  handle: {
    snapshot: () => ({ turnId, ...(totalTokens === undefined ? {} : { usage: { totalTokens } }) }),
  },
});

/** What the registry hands out for a run: its runtime, which names the run it follows. */
interface Handle {
  run: { threadId: string; clientMessageId: string };
}
const handle = (clientMessageId: string, threadId = THREAD): Handle => ({
  run: { threadId, clientMessageId },
});

/** A world: a shared connection whose held connection answers with `answer`; a recording registry. */
function world(answer: Answer, options: { attaches?: boolean; closing?: boolean } = {}) {
  const events: string[] = [];
  const calls: [string, Params][] = [];
  const counts = new Map<string, number>();
  const holds: unknown[] = [];
  let active: Handle | undefined;
  const byId = new Map<string, Handle>();
  let finished: { threadId: string; clientMessageId: string } | undefined;
  const operations: unknown[] = [];
  let run: { threadId: string; clientMessageId: string } | undefined;
  let lost: Lost | undefined;
  /** The job of each run an attach began. */
  const begun: string[] = [];
  const runtime = {
    observed: (status: string, error: unknown) =>
      events.push(`observed ${status} ${JSON.stringify(error)}`),
    carryUsage: (usage?: { totalTokens: number }) =>
      usage && events.push(`carry ${usage.totalTokens}`),
    detach: () => {
      events.push("detach");
      return Promise.resolve();
    },
  };
  const conn = {
    call: typedCall<CallOptions>((method, raw, opts) => {
      const params = raw as Params;
      calls.push([method, params]);
      assert.ok(opts?.timeoutMs !== undefined);
      assert.ok(opts.timeoutMs > 0 && opts.timeoutMs <= ATTACH_BUDGET_MS);
      const n = (counts.get(method) ?? 0) + 1;
      counts.set(method, n);
      try {
        return Promise.resolve(answer(method, params, n));
      } catch (error) {
        return Promise.reject(error);
      }
    }),
    follow: (threadId: string) => events.push(`follow ${threadId}`),
    close: () => {
      events.push("close");
      return Promise.resolve();
    },
  } as unknown as HeldConnection;
  let holdFails: RelayError | undefined;
  const connection = {
    capabilities: { shared: options.attaches ?? true },
    // An operation's session answers as the held connection does (the read before an attach).
    operation: (fn: (s: unknown) => Promise<unknown>, opts: unknown) =>
      operations.push(opts) && fn({
        call: typedCall((method, raw) => {
          calls.push([method, raw as Params]);
          return Promise.resolve(answer(method, raw as Params, 1));
        }),
        signal: new AbortController().signal,
        remainingMs: () => ATTACH_BUDGET_MS,
      }),
    hold: (o: unknown) => {
      holds.push(o);
      return holdFails ? Promise.reject(holdFails) : Promise.resolve(conn);
    },
  } as unknown as Connection;
  const registry = {
    closing: options.closing ?? false,
    run: (threadId: string) =>
      threadId === THREAD && active ? { ...active.run, handle: active } : undefined,
    byId: (id: string) => byId.get(id),
    finished: (threadId: string, clientMessageId: string) =>
      finished?.threadId === threadId && finished.clientMessageId === clientMessageId
        ? finished
        : undefined,
    lostRun: (threadId: string, clientMessageId: string) =>
      lost?.threadId === threadId && lost.clientMessageId === clientMessageId ? lost : undefined,
    begin: (
      threadId: string,
      clientMessageId: string,
      state: { kind: string },
      job?: { kind: string },
    ) => {
      assert.equal(state.kind, "running", "an attached run begins running");
      begun.push(job?.kind ?? "message");
      if (threadId === THREAD && active) return undefined;
      run = { threadId, clientMessageId };
      return run;
    },
    adopt: (c: unknown, r: { threadId: string; clientMessageId: string }, turnId: string) => {
      assert.equal(c, conn);
      events.push(`adopt ${r.threadId} ${r.clientMessageId} ${turnId}`);
      return runtime;
    },
    follow: (r: unknown, queued: unknown, guarded: boolean) =>
      events.push(
        r === runtime && queued === undefined && !guarded ? "registry.follow" : "follow ?",
      ),
    drop: (r: unknown) => events.push(r === run ? "drop" : "drop ?"),
  } as unknown as TurnRegistry;
  const signal = new AbortController().signal;
  return {
    events,
    calls,
    holds,
    runtime,
    methods: () => calls.map(([m]) => m),
    setActive: (a: typeof active) => (active = a),
    byId,
    operations,
    setFinished: (f: typeof finished) => (finished = f),
    setLost: (l: typeof lost) => (lost = l),
    begun,
    failHold: (e: RelayError) => (holdFails = e),
    deps: () => ({ connection, registry, clock: new ManualClock(), log: silentLogger }),
    attach: (clientMessageId = "m") =>
      attachTurn(
        { connection, registry, clock: new ManualClock(), log: silentLogger },
        { threadId: THREAD, clientMessageId, turnId: "t1" },
        signal,
      ),
    signal,
  };
}

const loaded = (type: string, turns: unknown[] = []): Answer => (method) =>
  method === "thread/list"
    ? listOf(type)
    : method === "thread/turns/list"
    ? { data: turns, nextCursor: null }
    : {};

Deno.test("attachTurn on a thread the daemon has loaded: holds, subscribes, resumes without turns and follows the turn", async () => {
  for (const type of ["idle", "active"]) {
    const w = world(loaded(type, [turn("t0", "completed", 1), turn("t1", "inProgress", null)]));
    const attached = await w.attach();
    assert.equal(attached, w.runtime as unknown as TurnRuntime, type);
    assert.deepEqual(w.holds, [{ signal: w.signal, budgetMs: ATTACH_BUDGET_MS }]);
    assert.deepEqual(w.calls, [
      ["thread/list", { limit: 100 }],
      ["thread/resume", { threadId: THREAD, excludeTurns: true }],
      ["thread/turns/list", {
        threadId: THREAD,
        limit: 50,
        sortDirection: "desc",
        itemsView: "notLoaded",
      }],
    ]);
    assert.deepEqual(w.events, [`adopt ${THREAD} m t1`, `follow ${THREAD}`, "registry.follow"]);
  }
});

Deno.test("attachTurn to a turn that already ended tells the runtime its status; one still running, or another turn's, not", async () => {
  const error = { message: "boom", codexErrorInfo: null, additionalDetails: null };
  const w = world(loaded("idle", [turn("t1", "failed", 2, error)]));
  await w.attach();
  assert.match(w.events.at(-1)!, /^observed failed \{"message":"boom"/);
  for (
    const turns of [[turn("t1", "inProgress", null)], [turn("t9", "completed", 3)], [
      turn("t1", "interrupted", null),
    ], [turn("t1", "inProgress", 4)]]
  ) {
    const quiet = world(loaded("idle", turns));
    assert.ok(await quiet.attach());
    assert.ok(!quiet.events.some((e) => e.startsWith("observed")), JSON.stringify(turns));
  }
  const done = world(loaded("idle", [turn("t1", "completed", 3)]));
  await done.attach();
  assert.equal(done.events.at(-1), "observed completed null");
});

Deno.test("attachTurn never resumes a thread that is not loaded, or not listed in the bounded pages", async () => {
  const notLoaded = world(loaded("notLoaded"));
  assert.equal(await notLoaded.attach(), undefined);
  assert.deepEqual(notLoaded.methods(), ["thread/list"]);
  assert.deepEqual(notLoaded.events, ["close"]);
  const pages = (found: number | undefined, last = Infinity): Answer => (_m, params, n) => {
    assert.deepEqual(params, n === 1 ? { limit: 100 } : { limit: 100, cursor: `c${n - 1}` });
    return {
      data: n === found ? [entry(THREAD, "idle")] : [entry(OTHER, "idle")],
      nextCursor: n < last ? `c${n}` : null,
    };
  };
  const at = world((m, p, n) =>
    m === "thread/list" ? pages(STATUS_PAGES)(m, p, n) : loaded("idle")(m, p, n)
  );
  assert.ok(await at.attach(), "found on the last page searched");
  const past = world(pages(STATUS_PAGES + 1));
  assert.equal(await past.attach(), undefined, "one page past the bound: not attached");
  assert.deepEqual(past.methods(), Array(STATUS_PAGES).fill("thread/list"));
  assert.deepEqual(past.events, ["close"]);
  const end = world(pages(undefined, 2));
  assert.equal(await end.attach(), undefined, "the list ended without it");
  assert.deepEqual(end.methods(), ["thread/list", "thread/list"]);
});

Deno.test("attachTurn does not attach when it cannot, should not, or fails; nothing is left behind", async () => {
  const cannot = world(loaded("idle"), { attaches: false });
  assert.equal(await cannot.attach(), undefined);
  const closing = world(loaded("idle"), { closing: true });
  assert.equal(await closing.attach(), undefined);
  for (const w of [cannot, closing]) assert.deepEqual([w.holds, w.calls, w.events], [[], [], []]);

  const busy = world(loaded("idle"));
  const mine = handle("m");
  busy.setActive(mine);
  assert.equal(await busy.attach("m"), mine, "the message's own runtime is the answer");
  assert.equal(await busy.attach("other"), undefined, "another message's runtime: not attached");
  assert.deepEqual([busy.holds, busy.calls], [[], []]);

  const noConnection = world(loaded("idle"));
  noConnection.failHold(new RelayError("busy", "full"));
  assert.equal(await noConnection.attach(), undefined);
  assert.deepEqual([noConnection.calls, noConnection.events], [[], []]);

  const listFails = world(() => {
    throw new RelayError("timeout", "lost");
  });
  assert.equal(await listFails.attach(), undefined);
  assert.deepEqual(listFails.events, ["close"], "closed, no runtime made");

  const resumeFails = world((m, p, n) => {
    if (m === "thread/resume") throw new RelayError("protocol_error", "no");
    return loaded("idle")(m, p, n);
  });
  assert.equal(await resumeFails.attach(), undefined);
  assert.deepEqual(resumeFails.events, [
    `adopt ${THREAD} m t1`,
    `follow ${THREAD}`,
    "drop",
    "detach",
  ]);
});

Deno.test("attachTurn: a runtime that appears on the thread while its status is read wins; the held connection closes", async () => {
  const mine = handle("m");
  const w: ReturnType<typeof world> = world(() => {
    w.setActive(mine);
    return listOf("idle");
  });
  assert.equal(await w.attach("m"), mine);
  assert.deepEqual(w.events, ["close"]);
  assert.deepEqual(w.methods(), ["thread/list"]);
});

/** A loaded thread whose search page holds message `m` of turn t1, in `status`. */
const withMessage = (status: string): Answer => (method, params, n) =>
  method === "thread/items/list"
    ? {
      data: [{
        turnId: "t1",
        item: { type: "userMessage", id: "u1", clientId: "m", content: [] },
      }],
      nextCursor: null,
    }
    : loaded("active", [turn("t1", status, status === "inProgress" ? null : 1)])(
      method,
      params,
      n,
    );

Deno.test("locateMessage(): a message whose turn runs on an attaching backend is followed by a runtime attached to that turn", async () => {
  const w = world(withMessage("inProgress"));
  const ref = { threadId: THREAD, clientMessageId: "m" };
  const entry = await locateMessage(ref, w.deps(), true, [], w.signal);
  assert.deepEqual(entry, { ref, run: w.runtime });
  assert.ok(w.events.includes(`adopt ${THREAD} m t1`), w.events.join(" | "));
});

Deno.test("locateMessage(): a message whose turn ended, one another run claims first, or a backend that does not attach, is read", async () => {
  const ref = { threadId: THREAD, clientMessageId: "m" };
  const ended = world(withMessage("completed"));
  assert.deepEqual(await locateMessage(ref, ended.deps(), true, [], ended.signal), { ref });
  const claimed = world(withMessage("inProgress"));
  claimed.setActive(handle("another"));
  assert.deepEqual(await locateMessage(ref, claimed.deps(), true, [], claimed.signal), { ref });
  const notAttaching = world(withMessage("inProgress"));
  assert.deepEqual(
    await locateMessage(ref, notAttaching.deps(), false, [], notAttaching.signal),
    { ref },
  );
  assert.deepEqual(notAttaching.calls, [], "nothing read when it may not attach");
});

Deno.test("locateMessage(): the message's own run (active, or by a retried call's run id) is followed, its finished run ends the entry; nothing is read", async () => {
  const ref = { threadId: THREAD, clientMessageId: "m" };
  const w = world(withMessage("inProgress"));
  const mine = handle("m");
  w.setActive(mine);
  assert.deepEqual(await locateMessage(ref, w.deps(), true, [], w.signal), { ref, run: mine });
  w.setActive(handle("another"));
  w.byId.set("r-other", handle("m", OTHER));
  w.byId.set("r-mine", mine);
  assert.deepEqual(
    await locateMessage(ref, w.deps(), true, ["r-other", "r-mine"], w.signal),
    { ref, run: mine },
  );
  w.setActive(undefined);
  w.setFinished(mine.run);
  assert.deepEqual(await locateMessage(ref, w.deps(), true, ["r-other"], w.signal), {
    ref,
    end: { kind: "settled", run: mine.run },
  });
  assert.deepEqual(w.calls, [], "nothing read");
  w.setFinished(undefined);
  await locateMessage(ref, w.deps(), true, [], w.signal);
  assert.deepEqual(
    w.operations,
    [{ signal: w.signal, label: "attach" }],
    "the read runs under the call's signal",
  );
});

Deno.test("locateMessage(): when the read before an attach fails, the message is read as any other", async () => {
  const ref = { threadId: THREAD, clientMessageId: "m" };
  const w = world(withMessage("inProgress"));
  const deps = w.deps();
  const busy = new RelayError("busy", "no slot", { written: false });
  const connection = {
    ...deps.connection,
    operation: () => Promise.reject(busy),
  } as typeof deps.connection;
  assert.deepEqual(await locateMessage(ref, { ...deps, connection }, true, [], w.signal), { ref });
});

Deno.test("locateMessage(): a lost compaction (no message of its own) attaches by the turn its run followed, with its job and the usage it counted; before its turn was seen, or where the thread is not loaded, it is read", async () => {
  const ref = { threadId: THREAD, clientMessageId: "m" };
  const w = world(loaded("idle", [turn("t9", "completed", 2)]));
  w.setLost(lostRun("compact", "t9", 15));
  assert.deepEqual(await locateMessage(ref, w.deps(), true, [], w.signal), {
    ref,
    run: w.runtime,
  });
  assert.deepEqual(w.begun, ["compact"]);
  assert.deepEqual(w.events.slice(0, 2), [`adopt ${THREAD} m t9`, "carry 15"]);
  assert.ok(w.events.includes("observed completed null"), w.events.join(" | "));
  assert.ok(!w.methods().includes("thread/items/list"), "no message is looked for");
  const unseen = world(loaded("idle"));
  unseen.setLost(lostRun("compact", null));
  assert.deepEqual(await locateMessage(ref, unseen.deps(), true, [], unseen.signal), { ref });
  assert.deepEqual(unseen.calls, [], "its turn is not guessed");
  const noRuntime = world(loaded("idle"));
  noRuntime.setLost({ ...lostRun("compact", "t9"), handle: undefined });
  assert.deepEqual(await locateMessage(ref, noRuntime.deps(), true, [], noRuntime.signal), { ref });
  assert.deepEqual(noRuntime.calls, [], "nothing seen, nothing guessed");
  const notLoaded = world(loaded("notLoaded"));
  notLoaded.setLost(lostRun("compact", "t9"));
  assert.deepEqual(await locateMessage(ref, notLoaded.deps(), true, [], notLoaded.signal), { ref });
  assert.deepEqual(notLoaded.methods(), ["thread/list"], "never resumed");
  // A lost message's run is found by its message, as any message is.
  const message = world(withMessage("inProgress"));
  message.setLost(lostRun("message", "t1"));
  await locateMessage(ref, message.deps(), true, [], message.signal);
  assert.ok(message.methods().includes("thread/items/list"), message.methods().join(" "));
});
