/** Protects: a compaction run's own turn is the next turn its idle thread starts (issue 42). */
import assert from "assert";
import { TurnEvents } from "../../src/turn/turn_events.ts";
import { MESSAGE_JOB } from "../../src/turn/run_job.ts";

const started = (threadId: string, id: string) => ({
  threadId,
  turn: { id, rootTurnId: id },
});

Deno.test("TurnEvents: a compaction takes the next turn started on its thread, and its end", () => {
  const events = new TurnEvents(
    { threadId: "t1", clientMessageId: "c", job: { kind: "compact" } },
    null,
  );
  assert.deepEqual(events.notification("turn/started", started("t2", "other")), []);
  assert.deepEqual(events.notification("turn/started", { threadId: "t1", turn: {} }), [
    { kind: "note", text: "A turn started" },
  ], "a start without a turn id takes nothing");
  assert.deepEqual(events.notification("turn/started", started("t1", "cmp")), [
    { kind: "ownTurnStarted" },
  ]);
  assert.equal(events.turnId, "cmp");
  assert.deepEqual(events.notification("turn/started", started("t1", "later")), []);
  assert.equal(events.turnId, "cmp", "taken once");
  const end = events.notification("turn/completed", {
    threadId: "t1",
    turn: { id: "cmp", status: "completed" },
  });
  assert.deepEqual(end, [{ kind: "ended", end: "completed" }]);
});

Deno.test("TurnEvents: a message run never takes a turn by its start alone", () => {
  const events = new TurnEvents({ threadId: "t1", clientMessageId: "c", job: MESSAGE_JOB }, null);
  events.notification("turn/started", started("t1", "someone"));
  assert.equal(events.turnId, null);
});
