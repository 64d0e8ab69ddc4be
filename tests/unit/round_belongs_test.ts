/**
 * `roundBelongs()` (`src/host/input_rounds.ts`): the one check whether a sealed
 * input-round state was minted for the call that carries it back.
 */

import assert from "assert";
import { roundBelongs, type RoundState } from "../../src/host/input_rounds.ts";

const T = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const base: RoundState = {
  v: 1,
  tool: "codex_wait_reply",
  runIds: ["r"],
  threadId: T,
  clientMessageId: "m",
  tokens: ["k"],
  round: 1,
  waitSeconds: 30,
};
const receipt = { status: "queued" as const, clientMessageId: "m", threadId: T };

Deno.test("roundBelongs() takes a single wait's state back only on the same tool, thread and message", () => {
  const call = { tool: "codex_wait_reply" as const, threadId: T, clientMessageId: "m" };
  assert.equal(roundBelongs(base, call), true);
  assert.equal(roundBelongs(base, { ...call, clientMessageId: "other" }), false);
  assert.equal(roundBelongs(base, { ...call, threadId: "x" }), false);
  assert.equal(roundBelongs({ ...base, tool: "codex_run", receipt }, call), false);
  assert.equal(
    roundBelongs({ ...base, messages: [{ threadId: T, clientMessageId: "m" }] }, call),
    false,
    "a wait on several messages is another call",
  );
});

Deno.test("roundBelongs() takes a wait on several messages back only with the same list in the same order", () => {
  const a = { threadId: T, clientMessageId: "a" };
  const b = { threadId: T, clientMessageId: "b" };
  const state = { ...base, messages: [a, b] };
  assert.equal(roundBelongs(state, { tool: "codex_wait_reply", ...a, messages: [a, b] }), true);
  assert.equal(roundBelongs(state, { tool: "codex_wait_reply", ...b, messages: [b, a] }), false);
  assert.equal(roundBelongs(state, { tool: "codex_wait_reply", ...a, messages: [a] }), false);
  assert.equal(
    roundBelongs(base, {
      tool: "codex_wait_reply",
      threadId: T,
      clientMessageId: "m",
      messages: [{ threadId: T, clientMessageId: "m" }],
    }),
    false,
    "a single wait's state",
  );
});

Deno.test("roundBelongs() takes a codex_run state back with its receipt and the same thread id, any case; a name cannot be compared", () => {
  const state: RoundState = { ...base, tool: "codex_run", receipt };
  assert.equal(roundBelongs(state, { tool: "codex_run" }), true);
  assert.equal(roundBelongs(state, { tool: "codex_run", threadRef: T.toUpperCase() }), true);
  assert.equal(roundBelongs(state, { tool: "codex_run", threadRef: "my thread" }), true);
  assert.equal(
    roundBelongs(state, { tool: "codex_run", threadRef: "0199a1b2-c3d4-7e5f-8a9b-000000000000" }),
    false,
  );
  assert.equal(roundBelongs({ ...state, receipt: undefined }, { tool: "codex_run" }), false);
});
