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

Deno.test("TurnEvents attached again to a lost compaction's turn: the usage that run counted is counted on from, once; none carried, none told", () => {
  const zero = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0 };
  const tell = (events: TurnEvents, total: number) =>
    events.notification("thread/tokenUsage/updated", {
      threadId: "t1",
      turnId: "cmp",
      tokenUsage: {
        total: { ...zero, totalTokens: total },
        last: { ...zero, inputTokens: 10, totalTokens: 10 },
        modelContextWindow: null,
      },
    });
  const compact = { threadId: "t1", clientMessageId: "c", job: { kind: "compact" } } as const;
  const lost = new TurnEvents(compact, "cmp");
  tell(lost, 20); // Codex's repeat of the previous request: nothing.
  tell(lost, 30);
  const counted = lost.usage!;
  assert.equal(counted.totalTokens, 10);
  const again = new TurnEvents(compact, "cmp");
  again.carryUsage(counted);
  again.carryUsage(undefined);
  assert.equal(again.usage, counted, "kept, and not replaced by nothing");
  tell(again, 30); // The same total again is no new request.
  assert.equal(again.usage?.totalTokens, 10);
  tell(again, 40);
  assert.deepEqual([again.usage?.totalTokens, again.usage?.inputTokens], [20, 20]);
  const told = new TurnEvents(compact, "cmp");
  tell(told, 20);
  told.carryUsage(counted);
  assert.notEqual(told.usage, counted, "what this runtime was told stays");
  const none = new TurnEvents(compact, "cmp");
  none.carryUsage(undefined);
  assert.equal(none.view(undefined).usage, undefined);
});
