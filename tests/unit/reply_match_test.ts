import assert from "assert";
import type { ItemEntry, RawItem } from "../../src/codex/types.ts";
import { RelayError } from "../../src/core/errors.ts";
import { matchUserItem } from "../../src/reply/mod.ts";

// Shapes from transcripts/02-read-methods.json and 07-edge-cases.json.
const T1 = "01a22a5b-b41a-7e51-8a8b-b71346ecbe4b";
const T2 = "01a22a5b-b475-7db0-aa1d-2999e00be3d4";
const T3 = "01a22a5b-ba77-7670-874b-ffa62c011d68";
const T4 = "01a22a5b-ba9b-7d02-8c1e-00844b7c0488";

function entry(turnId: string, item: Record<string, unknown>): ItemEntry {
  return {
    turnId,
    item: {
      ...item,
      startedAtMs: 1796006982707,
      completedAtMs: 1796006982707,
    } as unknown as RawItem,
  };
}

function user(turnId: string, id: string, clientId: unknown, text = "hello"): ItemEntry {
  return entry(turnId, {
    type: "userMessage",
    id,
    clientId,
    content: [{ type: "text", text, text_elements: [] }],
  });
}

function agent(turnId: string, id: string, phase: unknown, text: unknown): ItemEntry {
  return entry(turnId, {
    type: "agentMessage",
    moderation: null,
    id,
    text,
    phase,
    memoryCitation: null,
    delivery: null,
    questions: null,
  });
}

/** The whole thread of 02-read-methods, newest first (`sortDirection: "desc"`). */
const DESC_PAGE: ItemEntry[] = [
  agent(T4, "msg_4_final", "final_answer", "Echo #4: fourth message, no client id"),
  agent(T4, "msg_4_c", "commentary", "Looking at: fourth message, no client id"),
  user(T4, "01a22a5b-baa5-7270-8ad1-89472a9555e4", null, "fourth message, no client id"),
  agent(T3, "msg_3_final", "final_answer", "Echo #3: third message"),
  agent(T3, "msg_3_c", "commentary", "Looking at: third message"),
  user(T3, "01a22a5b-ba81-7643-b7af-d9938e2533d8", "cum-basic-3", "third message"),
  agent(T2, "msg_2_final", "final_answer", "Echo #2: second message SLOW:1500"),
  agent(T2, "msg_2_c", "commentary", "Looking at: second message SLOW:1500"),
  user(T2, "01a22a5b-b47c-73b3-ae9a-f0323024ff95", "cum-basic-2", "second message SLOW:1500"),
  agent(T1, "msg_1_final", "final_answer", "Echo #1: first message"),
  agent(T1, "msg_1_c", "commentary", "Looking at: first message"),
  user(T1, "01a22a5b-b433-7c10-bca6-0fa5da83c96a", "cum-basic-1", "first message"),
];

function assertProtocolError(fn: () => unknown): void {
  assert.throws(fn, (e: unknown) => e instanceof RelayError && e.reason === "protocol_error");
}

Deno.test("matchUserItem() finds the one user message with the client id", () => {
  assert.deepEqual(matchUserItem(DESC_PAGE, "cum-basic-2"), {
    kind: "observed",
    turnId: T2,
    itemId: "01a22a5b-b47c-73b3-ae9a-f0323024ff95",
  });
  assert.deepEqual(matchUserItem(DESC_PAGE, "cum-basic-1"), {
    kind: "observed",
    turnId: T1,
    itemId: "01a22a5b-b433-7c10-bca6-0fa5da83c96a",
  });
});

Deno.test("matchUserItem() finds a legacy positional user item id", () => {
  const page = [
    agent("01a22a5c-6642-7262-aa83-ba324d49bd8d", "item-3", "final_answer", "Echo #1"),
    user("01a22a5c-6642-7262-aa83-ba324d49bd8d", "item-1", "cum-legacy-1", "legacy hello"),
  ];
  assert.deepEqual(matchUserItem(page, "cum-legacy-1"), {
    kind: "observed",
    turnId: "01a22a5c-6642-7262-aa83-ba324d49bd8d",
    itemId: "item-1",
  });
});

Deno.test("matchUserItem() reports no_match when no client id is equal", () => {
  assert.deepEqual(matchUserItem(DESC_PAGE, "cum-basic-9"), { kind: "no_match" });
  assert.deepEqual(matchUserItem([], "cum-basic-1"), { kind: "no_match" });
});

Deno.test("matchUserItem() compares client ids exactly", () => {
  for (
    const id of ["cum-basic", "CUM-BASIC-1", "cum-basic-1 ", " cum-basic-1", "cum-basic-10", ""]
  ) {
    assert.deepEqual(matchUserItem(DESC_PAGE, id), { kind: "no_match" }, id);
  }
});

Deno.test("matchUserItem() never matches a null or absent client id", () => {
  const page = [user(T1, "u-null", null), entry(T1, { type: "userMessage", id: "u-absent" })];
  assert.deepEqual(matchUserItem(page, "null"), { kind: "no_match" });
  assert.deepEqual(matchUserItem(page, "undefined"), { kind: "no_match" });
  assert.deepEqual(matchUserItem(page, ""), { kind: "no_match" });
});

Deno.test("matchUserItem() reports ambiguous with the count when the id repeats", () => {
  // thread/queue/add does not de-duplicate clientUserMessageId.
  const two = [user(T2, "u-2", "dup"), agent(T1, "m", "final_answer", "x"), user(T1, "u-1", "dup")];
  assert.deepEqual(matchUserItem(two, "dup"), { kind: "ambiguous", count: 2 });
  const three = [...two, user(T3, "u-3", "dup"), user(T3, "u-4", "other")];
  assert.deepEqual(matchUserItem(three, "dup"), { kind: "ambiguous", count: 3 });
});

Deno.test("matchUserItem() only matches userMessage items", () => {
  const page = [
    entry(T1, { type: "agentMessage", id: "a", clientId: "x", text: "t", phase: "final_answer" }),
    entry(T1, { type: "hookPrompt", id: "h", clientId: "x" }),
    user(T2, "u", "x"),
  ];
  assert.deepEqual(matchUserItem(page, "x"), { kind: "observed", turnId: T2, itemId: "u" });
});

Deno.test("matchUserItem() throws protocol_error on a malformed clientId", () => {
  for (const bad of [42, true, {}, ["cum-basic-1"]]) {
    assertProtocolError(() => matchUserItem([...DESC_PAGE, user(T1, "u-bad", bad)], "cum-basic-1"));
  }
});

Deno.test("matchUserItem() throws protocol_error on a user message without a string id", () => {
  const page = [entry(T1, { type: "userMessage", id: 7, clientId: "cum-basic-1" })];
  assertProtocolError(() => matchUserItem(page, "cum-basic-1"));
});

Deno.test("matchUserItem() does not parse items of other types", () => {
  const page = [
    agent(T2, "msg_bad", "FINAL", 12), // would fail parseItem
    entry(T2, { type: "reasoning" }), // no id
    entry(T2, { type: "commandExecution", id: 5, aggregatedOutput: null }),
    ...DESC_PAGE,
  ];
  assert.deepEqual(matchUserItem(page, "cum-basic-3"), {
    kind: "observed",
    turnId: T3,
    itemId: "01a22a5b-ba81-7643-b7af-d9938e2533d8",
  });
});
