import assert from "assert";
import { ManualClock } from "../../testing/manual_clock.ts";
import type { Session } from "../../src/connect/connection.ts";
import { buildReadResult } from "../../src/reply/mod.ts";
import type { ReadReplyResult } from "../../src/reply/mod.ts";
import { isSettled, waitForReply } from "../../src/ops/wait_reply.ts";
import type { ReadReplyInput } from "../../src/ops/read_reply.ts";
import type { ObservedTurnStatus } from "../../src/reply/mod.ts";

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

/** A progress listener that lets the armed pause fire, recording how long it was. */
function drive(clock: ManualClock, pauses: number[]) {
  return () => {
    const from = clock.now();
    while (clock.pending > 0) clock.advance(1);
    pauses.push(clock.now() - from);
  };
}

Deno.test("isSettled() ends a wait on a final answer, a terminal turn, ambiguous or unavailable", () => {
  const cases: [ReadReplyResult, boolean][] = [
    [noMatch(), false],
    [observed("unverified"), false],
    [observed("inProgress"), false],
    [observed("completed"), true],
    [observed("failed"), true],
    [observed("interrupted"), true],
    [observed("unverified", ["hi"]), true],
    [buildReadResult({ ...SCOPE, match: { kind: "ambiguous", count: 2 } }), true],
    [buildReadResult({ ...SCOPE, match: { kind: "unavailable", reason: "timeout" } }), true],
  ];
  for (const [result, settled] of cases) {
    assert.equal(isSettled(result), settled, JSON.stringify(result));
  }
});

Deno.test("waitForReply() pauses 250 ms, doubling to 2 s, and reads once more at the deadline", async () => {
  const clock = new ManualClock();
  const readsAt: number[] = [];
  const pauses: number[] = [];
  const out = await waitForReply(fakeSession(), { ...SCOPE, timeoutSeconds: 10 }, {
    clock,
    onProgress: drive(clock, pauses),
    read: () => {
      readsAt.push(clock.now());
      return Promise.resolve(observed("unverified"));
    },
  });
  assert.deepEqual(pauses, [250, 500, 1000, 2000, 2000, 2000, 2000, 250]);
  assert.deepEqual(readsAt, [0, 250, 750, 1750, 3750, 5750, 7750, 9750, 10000]);
  assert.equal(out.timedOut, true);
  assert.equal(out.status, "observed");
  assert.equal(clock.pending, 0, "no timer outlives the wait");
});

Deno.test("waitForReply() returns the read that settles it, not timed out", async () => {
  const clock = new ManualClock();
  const results = [noMatch(), observed("unverified"), observed("unverified", ["done"])];
  const seen: ReadReplyInput[] = [];
  const pauses: number[] = [];
  const out = await waitForReply(
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
  assert.deepEqual(pauses, [250, 500]);
  assert.deepEqual(seen, [1, 2, 3].map(() => ({ ...SCOPE, cursor: "abc" })), "same request");
});

Deno.test("waitForReply() reports progress without reply text, once per unsettled read", async () => {
  const clock = new ManualClock();
  const reports: { reads: number; elapsedMs: number; timeoutMs: number }[] = [];
  await waitForReply(fakeSession(), { ...SCOPE, timeoutSeconds: 1 }, {
    clock,
    onProgress: (p) => {
      reports.push({ reads: p.reads, elapsedMs: p.elapsedMs, timeoutMs: p.timeoutMs });
      while (clock.pending > 0) clock.advance(1);
    },
    read: () => Promise.resolve(observed("unverified")),
  });
  assert.deepEqual(reports, [
    { reads: 1, elapsedMs: 0, timeoutMs: 1000 },
    { reads: 2, elapsedMs: 250, timeoutMs: 1000 },
    { reads: 3, elapsedMs: 750, timeoutMs: 1000 },
  ]);
});

Deno.test("waitForReply() stops a pause at once when the operation is aborted", async () => {
  const clock = new ManualClock();
  const controller = new AbortController();
  let reads = 0;
  const out = await waitForReply(fakeSession(controller.signal), { ...SCOPE, timeoutSeconds: 30 }, {
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
