/**
 * The run board (`src/turn/run_board.ts`): what one look at this relay's
 * runs shows, and the rule that an ended run is listed by the first look
 * after its end and by no later one, within its bound.
 */

import assert from "assert";
import { type LiveRun, RunBoard, UNSEEN_MAX } from "../../src/turn/run_board.ts";

const T0 = Date.parse("2026-12-01T10:00:00.000Z");

function live(id: string, over: Partial<LiveRun> = {}): LiveRun {
  return {
    id,
    threadId: `thread-${id}`,
    clientMessageId: `msg-${id}`,
    phase: "running",
    pending: 0,
    ...over,
  };
}

Deno.test("a live run is listed with its state and startedAt; pending requests make it waiting_for_approval with the count", () => {
  let now = T0;
  const board = new RunBoard(() => now);
  board.began("a");
  now += 5_000;
  board.began("b");
  assert.deepEqual(
    board.look([live("a"), live("b", { pending: 2 }), live("c", { phase: "queued" })]),
    [
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
        approvals: 2,
        startedAt: "2026-12-01T10:00:05.000Z",
      },
      { threadId: "thread-c", clientMessageId: "msg-c", state: "queued", startedAt: null },
    ],
  );
});

Deno.test("an ended run is listed by the next look only, with how it ended and when it started", () => {
  const board = new RunBoard(() => T0);
  board.began("a");
  board.ended(live("a", { phase: "failed", pending: 1 }));
  assert.deepEqual(board.look([]), [
    {
      threadId: "thread-a",
      clientMessageId: "msg-a",
      state: "failed",
      startedAt: "2026-12-01T10:00:00.000Z",
    },
  ]);
  assert.deepEqual(board.look([]), [], "not by a later look");
});

Deno.test("a forgotten runtime (its start failed) is not listed as ended; its start time is dropped", () => {
  const board = new RunBoard(() => T0);
  board.began("a");
  board.forget("a");
  assert.deepEqual(board.look([]), []);
  assert.equal(board.look([live("a")])[0].startedAt, null);
});

Deno.test(`at most ${UNSEEN_MAX} ended runs wait for a look: at the bound all are listed, past it the oldest is dropped`, () => {
  const board = new RunBoard(() => T0);
  for (let i = 0; i < UNSEEN_MAX; i++) board.ended(live(String(i), { phase: "completed" }));
  const atBound = board.look([]);
  assert.equal(atBound.length, UNSEEN_MAX);
  for (let i = 0; i <= UNSEEN_MAX; i++) board.ended(live(String(i), { phase: "completed" }));
  const past = board.look([]);
  assert.equal(past.length, UNSEEN_MAX);
  assert.equal(past[0].clientMessageId, "msg-1", "the oldest (msg-0) was dropped");
  assert.equal(past.at(-1)!.clientMessageId, `msg-${UNSEEN_MAX}`);
});
