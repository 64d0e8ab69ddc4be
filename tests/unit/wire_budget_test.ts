import assert from "assert";
import { MAX_UNANSWERED, MAX_UNWRITTEN_BYTES, WireBudget } from "../../src/host/wire_budget.ts";

/** Whether `p` has settled once pending microtasks ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

Deno.test("WireBudget bounds: 256 requests and 8 MiB by default, never below 1", () => {
  const b = new WireBudget();
  assert.deepEqual([b.maxRequests, b.maxBytes], [256, 8 * 1024 * 1024]);
  assert.deepEqual([MAX_UNANSWERED, MAX_UNWRITTEN_BYTES], [256, 8388608]);
  const tiny = new WireBudget(0, -5);
  assert.deepEqual([tiny.maxRequests, tiny.maxBytes], [1, 1]);
  assert.deepEqual([b.unanswered, b.unwrittenBytes, b.full], [0, 0, undefined]);
});

Deno.test("WireBudget is full at each bound, not one below it", () => {
  const b = new WireBudget(3, 100);
  b.read(1);
  b.read(2);
  assert.equal(b.full, undefined, "one below the request bound");
  b.read(3);
  assert.equal(b.full, "requests", "at it");
  const bytes = new WireBudget(3, 100);
  bytes.queued(99);
  assert.equal(bytes.full, undefined, "one byte below");
  bytes.queued(1);
  assert.equal(bytes.full, "bytes");
  bytes.read(1);
  bytes.read(2);
  bytes.read(3);
  assert.equal(bytes.full, "requests", "both: requests named first");
});

Deno.test("WireBudget owes one answer per request read, by id and type; an answer not owed is refused", () => {
  const b = new WireBudget();
  b.read(1);
  b.read(1);
  b.read("1");
  assert.equal(b.unanswered, 3);
  assert.deepEqual(b.owed(), [1, 1, "1"]);
  assert.equal(b.answer(1), true);
  assert.deepEqual(b.owed(), [1, "1"]);
  assert.equal(b.answer(1), true);
  assert.equal(b.answer(1), false, "a reused id: owed twice, answered twice");
  assert.deepEqual(b.owed(), ["1"]);
  assert.equal(b.unanswered, 3, "answers count until written");
  b.written(10, true);
  b.written(10, true);
  assert.equal(b.unanswered, 1);
  assert.equal(b.answer(2), false);
});

Deno.test("WireBudget: a cancelled request is no longer owed or counted; cancelling one not owed changes nothing", () => {
  const b = new WireBudget();
  b.read(7);
  b.read(8);
  assert.equal(b.cancel(7), true);
  assert.deepEqual([b.unanswered, b.owed()], [1, [8]]);
  assert.equal(b.cancel(7), false);
  assert.equal(b.cancel("8"), false);
  assert.deepEqual([b.unanswered, b.owed()], [1, [8]]);
  assert.equal(b.answer(7), false, "its late answer is not written");
});

Deno.test("WireBudget: refusals count until written; bytes and counts never go below zero", () => {
  const b = new WireBudget();
  b.refused();
  assert.equal(b.unanswered, 1);
  b.queued(40);
  b.written(40, false);
  assert.deepEqual([b.unanswered, b.unwrittenBytes], [1, 0], "a notification answers nothing");
  b.written(0, true);
  assert.equal(b.unanswered, 0);
  b.written(50, true);
  assert.deepEqual([b.unanswered, b.unwrittenBytes], [0, 0]);
  b.queued(10);
  b.written(4, false);
  assert.equal(b.unwrittenBytes, 6);
});

Deno.test("WireBudget.room() waits, once full, until both counts are at three quarters of their bounds", async () => {
  const b = new WireBudget(8, 100);
  assert.equal(await settled(b.room()), true, "not full: at once");
  for (let i = 0; i < 8; i++) b.read(i);
  const room = b.room();
  b.answer(0);
  b.written(0, true);
  assert.equal(b.full, undefined);
  assert.equal(await settled(room), false, "7 of 8: above three quarters");
  b.queued(76);
  b.answer(1);
  b.written(0, true);
  assert.equal(await settled(room), false, "6 requests, but 76 of 100 bytes");
  b.written(1, false);
  assert.equal(await settled(room), true, "6 of 8 and 75 of 100");
  const bytes = new WireBudget(8, 100);
  bytes.queued(100);
  const r2 = bytes.room();
  bytes.written(24, false);
  assert.equal(await settled(r2), false, "76 bytes");
  bytes.written(1, false);
  assert.equal(await settled(r2), true);
});

Deno.test("WireBudget.idle() resolves once every answer and queued byte is written", async () => {
  const b = new WireBudget();
  assert.equal(await settled(b.idle()), true);
  b.read(1);
  b.queued(5);
  const idle = b.idle();
  b.answer(1);
  b.written(3, true);
  assert.equal(await settled(idle), false, "2 bytes left");
  b.written(2, false);
  assert.equal(await settled(idle), true);
  const waiting = new WireBudget();
  waiting.read(1);
  const both = [waiting.idle(), waiting.idle()];
  waiting.cancel(1);
  assert.deepEqual(await Promise.all(both.map(settled)), [true, true], "every waiter wakes");
});

Deno.test("WireBudget: room() is immediate whenever no bound is reached; idle() waits for owed answers even with nothing queued", async () => {
  const b = new WireBudget(8, 100);
  for (let i = 0; i < 7; i++) b.read(i);
  b.queued(99);
  assert.equal(await settled(b.room()), true, "7 of 8 and 99 of 100: not full, read on");
  const idle = new WireBudget();
  idle.read(1);
  const waiting = idle.idle();
  assert.equal(await settled(waiting), false, "an answer is owed, no byte is queued");
  idle.answer(1);
  idle.written(0, true);
  assert.equal(await settled(waiting), true);
});
