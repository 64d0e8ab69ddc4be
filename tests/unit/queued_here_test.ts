import assert from "assert";
import { QueuedHere } from "../../src/ops/queued_here.ts";

Deno.test("QueuedHere knows a message by thread and id, and forgets the oldest past its bound", () => {
  const q = new QueuedHere(2);
  q.record("t1", "a");
  assert.ok(q.has("t1", "a"));
  assert.ok(!q.has("t2", "a"), "the same id in another thread is not the relay's");
  q.record("t1", "b");
  q.record("t1", "a"); // Recorded again: now the newest.
  q.record("t1", "c");
  assert.ok(!q.has("t1", "b"), "the oldest is forgotten");
  assert.ok(q.has("t1", "a") && q.has("t1", "c"));
});
