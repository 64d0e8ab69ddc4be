/**
 * Finding the running `codex_run` turns of other (earlier) relay processes in one
 * list operation (`src/ops/listed_runs.ts`): only `active` threads of the
 * page that this relay does not follow, at most OTHER_RELAY_PROBES of them, a
 * turn that is `inProgress` and whose user message carries a codex_run id
 * (`src/reply/run_id.ts`); and `codex_interrupt`'s mapping of a withdraw.
 */

import assert from "assert";
import { RelayError } from "../../src/core/errors.ts";
import type { Session } from "../../src/connect/connection.ts";
import type { Thread } from "../../src/codex/types.ts";
import {
  OTHER_RELAY_PROBES,
  otherRelayRuns,
  type OtherRelayScan,
} from "../../src/ops/listed_runs.ts";
import { isRunId, mintRunId, RUN_ID_TAG } from "../../src/reply/run_id.ts";
import { parseTurnsPage } from "../../src/codex/validate.ts";
import { typedCall } from "../../src/connect/connection.ts";
import { withdrawnResult } from "../../src/turn/run_result.ts";

Deno.test("mintRunId gives distinct lowercase UUIDs that carry the tag; other ids are not run ids", () => {
  const ids = new Set(Array.from({ length: 100 }, () => mintRunId()));
  assert.equal(ids.size, 100);
  for (const id of ids) {
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(id.slice(24).startsWith(RUN_ID_TAG));
    assert.ok(isRunId(id));
    assert.ok(!isRunId(id.toUpperCase()), "only the form codex_run mints");
  }
  assert.ok(!isRunId(crypto.randomUUID().slice(0, 24) + "00000000ffff"));
  assert.ok(!isRunId("users-own-message"));
  assert.ok(!isRunId(null));
});

const RUN = mintRunId();

function threadOf(
  id: string,
  status: Thread["status"] = "active",
  activeFlags: string[] = [],
): Thread {
  return { id, name: null, status, updatedAt: 1796006982, cwd: null, activeFlags };
}

function turnPage(status: string, clientId: string | null, startedAt: number | null = 1796006990) {
  return {
    data: [{
      id: "turn-1",
      status,
      error: null,
      completedAt: status === "inProgress" ? null : 1796006999,
      startedAt,
      items: [
        { type: "userMessage", id: "u1", clientId, content: [] },
        { type: "agentMessage", id: "a1", text: "secret", phase: "final_answer" },
      ],
    }],
    nextCursor: null,
  };
}

/** A session answering thread/turns/list per thread from `turns`; records what it was asked. */
function session(turns: Record<string, unknown>, asked: string[] = []): Session {
  return {
    signal: new AbortController().signal,
    remainingMs: () => 10_000,
    call: typedCall((method, params) => {
      const p = params as { threadId: string; limit: number; itemsView: string };
      assert.equal(method, "thread/turns/list");
      assert.equal(p.limit, 1);
      assert.equal(p.itemsView, "summary");
      asked.push(p.threadId);
      const answer = turns[p.threadId];
      if (answer instanceof Error) return Promise.reject(answer);
      return Promise.resolve(answer);
    }),
  };
}

const NONE: OtherRelayScan = { running: new Set(), queuedHere: () => false };

Deno.test("otherRelayRuns lists an inProgress turn whose user message carries a codex_run id, marked otherRelay, with its startedAt", async () => {
  const threads = [threadOf("t1")];
  const runs = await otherRelayRuns(
    session({ t1: turnPage("inProgress", RUN) }),
    threads,
    NONE,
  );
  assert.deepEqual(runs, [{
    threadId: "t1",
    clientMessageId: RUN,
    state: "running",
    startedAt: new Date(1796006990 * 1000).toISOString(),
    otherRelay: true,
  }]);
});

Deno.test("otherRelayRuns asks only active threads this relay does not follow; untagged, ended and idle turns are not listed", async () => {
  const threads = [
    threadOf("idle", "idle"),
    threadOf("cold", "notLoaded"),
    threadOf("mine"),
    threadOf("users"),
    threadOf("ended"),
    threadOf("run"),
  ];
  const asked: string[] = [];
  const s = session({
    users: turnPage("inProgress", "users-own-message"),
    ended: turnPage("completed", RUN),
    run: turnPage("inProgress", RUN, null),
  }, asked);
  const runs = await otherRelayRuns(s, threads, {
    running: new Set(["mine"]),
    queuedHere: (t, m) => t === "run" && m === RUN,
  });
  assert.deepEqual(asked, ["users", "ended", "run"], "never a notLoaded or idle thread");
  assert.deepEqual(runs, [{
    threadId: "run",
    clientMessageId: RUN,
    state: "running",
    startedAt: null,
  }]);
});

Deno.test("otherRelayRuns: a thread the daemon flags waitingOnApproval is waiting_for_approval, without a count", async () => {
  const threads = [
    threadOf("t1", "active", ["waitingOnApproval"]),
    threadOf("t2", "active", ["waitingOnUserInput"]),
  ];
  const runs = await otherRelayRuns(
    session({ t1: turnPage("inProgress", RUN), t2: turnPage("inProgress", RUN) }),
    threads,
    NONE,
  );
  assert.deepEqual(runs.map((r) => [r.state, r.pendingRequests]), [
    ["waiting_for_approval", undefined],
    ["waiting_for_approval", undefined],
  ]);
});

Deno.test(`otherRelayRuns asks at most ${OTHER_RELAY_PROBES} active threads: at the bound all, past it the rest are not asked`, async () => {
  for (const count of [OTHER_RELAY_PROBES, OTHER_RELAY_PROBES + 1]) {
    const threads = Array.from({ length: count }, (_, i) => threadOf(`t${i}`));
    const asked: string[] = [];
    const turns = Object.fromEntries(threads.map((t) => [t.id, turnPage("inProgress", RUN)]));
    const runs = await otherRelayRuns(session(turns, asked), threads, NONE);
    assert.equal(asked.length, Math.min(count, OTHER_RELAY_PROBES));
    assert.equal(runs.length, Math.min(count, OTHER_RELAY_PROBES));
  }
});

Deno.test("otherRelayRuns: a failed read ends the scan with what was found; a malformed turn fails closed there too", async () => {
  const threads = [threadOf("t1"), threadOf("t2"), threadOf("t3")];
  const asked: string[] = [];
  const runs = await otherRelayRuns(
    session({
      t1: turnPage("inProgress", RUN),
      t2: new RelayError("timeout", "slow"),
      t3: turnPage("inProgress", RUN),
    }, asked),
    threads,
    NONE,
  );
  assert.deepEqual(asked, ["t1", "t2"]);
  assert.deepEqual(runs.map((r) => r.threadId), ["t1"]);
  assert.throws(
    () => parseTurnsPage({ data: [{ id: "x", status: "weird" }], nextCursor: null }),
    /turn.status/,
  );
});

Deno.test("withdrawnResult: withdrawn and unknown keep their status; not_found and already_taken are not_running with the reason; the id is named", () => {
  const base = { threadId: "t1", clientMessageId: "m1" };
  const withdrawn = withdrawnResult({ ...base, status: "withdrawn" });
  assert.equal(withdrawn.status, "withdrawn");
  assert.match(withdrawn.message!, /m1 was deleted from the thread's queue/);
  assert.equal(
    withdrawnResult({ ...base, status: "unknown", reason: "timeout", message: "lost" }).status,
    "unknown",
  );
  const theirs = withdrawnResult({
    ...base,
    status: "not_found",
    reason: "not_queued_here",
    message: "not ours",
  });
  assert.deepEqual([theirs.status, theirs.reason, theirs.message], [
    "not_running",
    "not_queued_here",
    "m1: not ours",
  ]);
  assert.equal(
    withdrawnResult({ ...base, status: "already_taken", message: "taken" }).status,
    "not_running",
  );
  assert.equal(
    withdrawnResult({ ...base, status: "unavailable", reason: "busy", message: "b" }).status,
    "unavailable",
  );
});
