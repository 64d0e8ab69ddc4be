/** Protects: the pure part of codex_wait_reply on several messages (reply/wait_set.ts). */
import assert from "assert";
import {
  duplicateAt,
  mergeResults,
  summaryText,
  untilReached,
  WAIT_MESSAGES,
  WAIT_UNTIL,
} from "../../src/reply/wait_set.ts";

const T = "01a22a5c-6698-7df3-813e-7166a248c477";
const refs = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ threadId: T, clientMessageId: `m${i}` }));

Deno.test("untilReached: any at the first final message, all at the last", () => {
  assert.equal(untilReached("any", 0, 3), false);
  assert.equal(untilReached("any", 1, 3), true);
  assert.equal(untilReached("all", 2, 3), false);
  assert.equal(untilReached("all", 3, 3), true);
  assert.equal(untilReached("all", 1, 1), true);
});

Deno.test("mergeResults keeps the order given and counts the final ones as done", () => {
  const given = [
    { id: "a", timedOut: true },
    { id: "b", timedOut: false },
    { id: "c", timedOut: true },
    { id: "d", timedOut: false },
  ];
  const out = mergeResults("any", given);
  assert.equal(out.until, "any");
  assert.equal(out.done, 2);
  assert.deepEqual(out.messages.map((m) => m.id), ["a", "b", "c", "d"]);
  assert.equal(mergeResults("all", [{ timedOut: true }]).done, 0);
  assert.equal(mergeResults("all", given.map((g) => ({ ...g, timedOut: false }))).done, 4);
});

Deno.test("summaryText says how many are done and how many wait for approval", () => {
  assert.equal(
    summaryText({ done: 2, total: 5, waiting: 1 }),
    "2 of 5 done; 1 waiting for approval",
  );
  assert.equal(summaryText({ done: 0, total: 3, waiting: 0 }), "0 of 3 done");
});

Deno.test("duplicateAt finds the first repeat of threadId and clientMessageId", () => {
  assert.equal(duplicateAt(refs(3)), -1);
  assert.equal(duplicateAt([...refs(2), refs(1)[0]]), 2);
  assert.equal(
    duplicateAt([{ threadId: "a", clientMessageId: "1" }, { threadId: "b", clientMessageId: "1" }]),
    -1,
  );
});

Deno.test("a wait takes 1 to 16 messages and stops at any (the first final one) or all", () => {
  assert.deepEqual({ ...WAIT_MESSAGES }, { min: 1, max: 16 });
  assert.deepEqual(WAIT_UNTIL, ["any", "all"]);
});
