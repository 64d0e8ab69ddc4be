import assert from "assert";
import fc from "fast-check";
import type { ItemEntry, RawItem } from "../../src/codex/types.ts";
import { RelayError } from "../../src/core/errors.ts";
import {
  projectReplies as project,
  REPLY_BUDGET_BYTES,
  utf8Truncate,
} from "../../src/reply/mod.ts";
import type { ProjectionPage, ProjectionState } from "../../src/reply/mod.ts";
import type { TextReply } from "../../src/reply/schemas.ts";

/** The projector, for pages without moderated answers (tests/unit/reply_moderation_test.ts has those). */
function projectReplies(
  ...args: Parameters<typeof project>
): Omit<ProjectionPage, "replies"> & { replies: TextReply[] } {
  const page = project(...args);
  assert.ok(page.replies.every((r) => "text" in r), "these pages have no moderated answer");
  return page as Omit<ProjectionPage, "replies"> & { replies: TextReply[] };
}

// Shapes from transcripts/02-read-methods.json, 07-edge-cases.json and 09-approvals.json.
const TURN = "01a22a5b-b41a-7e51-8a8b-b71346ecbe4b";
const USER_ID = "01a22a5b-b433-7c10-bca6-0fa5da83c96a";

function entry(item: Record<string, unknown>, turnId = TURN): ItemEntry {
  return {
    turnId,
    item: {
      ...item,
      startedAtMs: 1796006982707,
      completedAtMs: 1796006982707,
    } as unknown as RawItem,
    startedAtMs: 1796006982707,
    completedAtMs: 1796006982707,
  } as ItemEntry;
}

function user(id: string, clientId: string | null, text: string): ItemEntry {
  return entry({
    type: "userMessage",
    id,
    clientId,
    content: [{ type: "text", text, text_elements: [] }],
  });
}

function agent(id: string, phase: unknown, text: unknown): ItemEntry {
  return entry({
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

function noPhase(id: string, text: string): ItemEntry {
  const e = agent(id, null, text);
  delete (e.item as Record<string, unknown>).phase;
  return e;
}

const reasoning = (id: string, text: string) =>
  entry({ type: "reasoning", id, summary: [text], content: [text] });

const command = (id: string, output: string) =>
  entry({
    type: "commandExecution",
    id,
    command: "/bin/bash -lc 'echo approved-by-lab'",
    cwd: "$ROOT/workspace",
    status: "completed",
    aggregatedOutput: output,
    exitCode: 0,
  });

const mcpTool = (id: string, output: string) =>
  entry({
    type: "mcpToolCall",
    id,
    server: "elicitor",
    tool: "elicit_colour",
    status: "completed",
    arguments: { question: "What is your favourite colour?" },
    result: { content: [{ type: "text", text: output }], structuredContent: null, _meta: null },
    error: null,
  });

/** Turn 1 of 02-read-methods, ascending. */
const BASIC_TURN = [
  user(USER_ID, "cum-basic-1", "first message"),
  agent("msg_1_c", "commentary", "Looking at: first message"),
  agent("msg_1_final", "final_answer", "Echo #1: first message"),
];

const bytes = (s: string) => new TextEncoder().encode(s).length;

/** What the app-server returns for an exclusive item anchor. */
function after(entries: ItemEntry[], itemId: string | null): ItemEntry[] {
  if (itemId === null) return entries;
  const i = entries.findIndex((e) => e.item.id === itemId);
  assert.ok(i >= 0, `anchor ${itemId} not found`);
  return entries.slice(i + 1);
}

function fresh(lastConsumedItemId: string | null = null): ProjectionState {
  return { lastConsumedItemId, budgetLeft: REPLY_BUDGET_BYTES, stopped: false };
}

function assertProtocolError(fn: () => unknown): void {
  assert.throws(fn, (e: unknown) => e instanceof RelayError && e.reason === "protocol_error");
}

// --- utf8Truncate -----------------------------------------------------------

Deno.test("utf8Truncate() keeps a text that fits", () => {
  assert.deepEqual(utf8Truncate("héllo 😀", 11), { text: "héllo 😀", bytes: 11, truncated: false });
  assert.deepEqual(utf8Truncate("", 0), { text: "", bytes: 0, truncated: false });
  assert.deepEqual(utf8Truncate("abc", 3), { text: "abc", bytes: 3, truncated: false });
});

Deno.test("utf8Truncate() cuts ASCII at the byte limit", () => {
  assert.deepEqual(utf8Truncate("abcdef", 4), { text: "abcd", bytes: 4, truncated: true });
  assert.deepEqual(utf8Truncate("abc", 0), { text: "", bytes: 0, truncated: true });
});

Deno.test("utf8Truncate() never splits a 2-, 3- or 4-byte sequence", () => {
  assert.deepEqual(utf8Truncate("aé", 2), { text: "a", bytes: 1, truncated: true });
  assert.deepEqual(utf8Truncate("a€", 3), { text: "a", bytes: 1, truncated: true });
  assert.deepEqual(utf8Truncate("a€", 4), { text: "a€", bytes: 4, truncated: false });
  for (const max of [1, 2, 3, 4]) {
    assert.deepEqual(utf8Truncate("a😀", max), { text: "a", bytes: 1, truncated: true }, `${max}`);
  }
  assert.deepEqual(utf8Truncate("a😀", 5), { text: "a😀", bytes: 5, truncated: false });
});

Deno.test("utf8Truncate() counts a lone surrogate as U+FFFD (3 bytes)", () => {
  assert.deepEqual(utf8Truncate("a\ud800b", 4), { text: "a\ud800", bytes: 4, truncated: true });
  assert.deepEqual(utf8Truncate("\udc00", 2), { text: "", bytes: 0, truncated: true });
});

Deno.test("utf8Truncate() rejects a negative or fractional limit", () => {
  for (const max of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(
      () => utf8Truncate("abc", max),
      (e) => e instanceof RangeError && e.message === "maxBytes must be a non-negative integer",
    );
  }
});

Deno.test("utf8Truncate() returns the longest whole-character prefix (property)", () => {
  const encoder = new TextEncoder();
  fc.assert(
    fc.property(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.nat({ max: 130 }),
      (text, max) => {
        const cut = utf8Truncate(text, max);
        assert.ok(text.startsWith(cut.text));
        assert.equal(encoder.encode(cut.text).length, cut.bytes);
        assert.ok(cut.bytes <= max);
        assert.equal(cut.truncated, cut.text.length < text.length);
        const rest = text.slice(cut.text.length);
        if (cut.truncated) {
          const next = String.fromCodePoint(rest.codePointAt(0)!);
          assert.ok(cut.bytes + encoder.encode(next).length > max, "not the longest prefix");
          const last = cut.text.charCodeAt(cut.text.length - 1);
          const first = rest.charCodeAt(0);
          const splitPair = last >= 0xd800 && last <= 0xdbff && first >= 0xdc00 && first <= 0xdfff;
          assert.ok(!splitPair, "split a surrogate pair");
        }
      },
    ),
    { numRuns: 2000 },
  );
});

// --- projectReplies ---------------------------------------------------------

Deno.test("projectReplies() projects only the final answer of a basic turn", () => {
  const page = projectReplies(BASIC_TURN, TURN);
  assert.deepEqual(page, {
    replies: [{ itemId: "msg_1_final", text: "Echo #1: first message", truncated: false }],
    lastConsumedItemId: "msg_1_final",
    budgetLeft: REPLY_BUDGET_BYTES - 22,
    stopped: false,
  });
});

Deno.test("projectReplies() projects several finals of one turn in stored order", () => {
  const turn = [
    ...BASIC_TURN,
    agent("msg_1_c2", "commentary", "more thinking"),
    agent("msg_1_final2", "final_answer", "Second final"),
    agent("msg_1_final3", "final_answer", "Third final ✓"),
  ];
  const page = projectReplies(turn, TURN);
  assert.deepEqual(page.replies.map((r) => [r.itemId, r.text]), [
    ["msg_1_final", "Echo #1: first message"],
    ["msg_1_final2", "Second final"],
    ["msg_1_final3", "Third final ✓"],
  ]);
  assert.equal(page.budgetLeft, REPLY_BUDGET_BYTES - 22 - 12 - bytes("Third final ✓"));
  assert.equal(page.lastConsumedItemId, "msg_1_final3");
});

Deno.test("projectReplies() keeps finals before and after a later user input of the same turn", () => {
  const turn = [
    ...BASIC_TURN,
    user("01a22a5b-b440-7000-8000-000000000001", "cum-steer", "a later input in the same turn"),
    agent("msg_1_final_b", "final_answer", "answers the later input"),
  ];
  const page = projectReplies(turn, TURN);
  assert.deepEqual(page.replies.map((r) => r.itemId), ["msg_1_final", "msg_1_final_b"]);
  assert.ok(page.replies.every((r) => !r.text.includes("later input in the same turn")));
});

Deno.test("projectReplies() accepts null and absent phases without projecting them", () => {
  // 07-edge-cases "message NOPHASE".
  const turn = [
    user("01a22a5c-66bd-7591-9e2c-9277463a02b6", "cum-nophase", "message NOPHASE"),
    agent("msg_2_a", null, "First unphased #2"),
    noPhase("msg_2_b", "Second unphased #2: message NOPHASE"),
  ];
  assert.equal("phase" in turn[2].item, false);
  const page = projectReplies(turn, TURN);
  assert.deepEqual(page, {
    replies: [],
    lastConsumedItemId: "msg_2_b",
    budgetLeft: REPLY_BUDGET_BYTES,
    stopped: false,
  });
});

Deno.test("projectReplies() never projects commentary, partial answers, reasoning or tool output", () => {
  const turn = [
    user(USER_ID, "cum-basic-1", "SECRET-USER"),
    agent("c", "commentary", "SECRET-COMMENTARY"),
    agent("p", "partial_answer", "SECRET-PARTIAL"),
    reasoning("r", "SECRET-REASONING"),
    command("call_sh_23", "SECRET-COMMAND\n"),
    mcpTool("call_mcp_17", "SECRET-MCP"),
    entry({ type: "fileChange", id: "f", changes: [{ path: "SECRET-FILE" }] }),
    entry({ type: "webSearch", id: "w", query: "SECRET-WEB" }),
    agent("msg_final", "final_answer", "the answer"),
    entry({ type: "plan", id: "plan", text: "SECRET-PLAN" }),
  ];
  const page = projectReplies(turn, TURN);
  assert.deepEqual(page.replies, [{ itemId: "msg_final", text: "the answer", truncated: false }]);
  assert.ok(!JSON.stringify(page).includes("SECRET"));
  assert.equal(page.lastConsumedItemId, "plan");
});

Deno.test("projectReplies() throws protocol_error on a malformed phase", () => {
  for (const phase of ["FINAL_ANSWER", "final", "", 1, true, {}, ["final_answer"]]) {
    const turn = [...BASIC_TURN, agent("msg_bad", phase, "text")];
    assertProtocolError(() => projectReplies(turn, TURN));
  }
});

Deno.test("projectReplies() throws protocol_error on non-string text, returning no text", () => {
  for (const text of [null, undefined, 5, ["a"], { text: "a" }]) {
    // A valid final precedes it: the page still yields nothing.
    const turn = [...BASIC_TURN, agent("msg_bad", "final_answer", text)];
    assertProtocolError(() => projectReplies(turn, TURN));
    const commentary = [...BASIC_TURN, agent("msg_bad", "commentary", text)];
    assertProtocolError(() => projectReplies(commentary, TURN));
  }
});

Deno.test("projectReplies() fails closed on a malformed agentMessage past the budget stop", () => {
  const turn = [
    agent("big", "final_answer", "x".repeat(REPLY_BUDGET_BYTES + 10)),
    agent("msg_bad", "bogus", "text"),
  ];
  assertProtocolError(() => projectReplies(turn, TURN));
});

Deno.test("projectReplies() parses only agentMessages: other items need an id only when consumed", () => {
  // A user message's clientId is the matcher's concern: an odd one here fails nothing.
  const odd = entry({ type: "userMessage", id: USER_ID, clientId: 7, content: [] });
  assert.deepEqual(projectReplies([odd, ...BASIC_TURN.slice(1)], TURN).replies, [
    { itemId: "msg_1_final", text: "Echo #1: first message", truncated: false },
  ]);
  // An item past the budget stop is not consumed: its missing id fails nothing.
  const turn = [
    agent("big", "final_answer", "x".repeat(REPLY_BUDGET_BYTES + 10)),
    entry({ type: "reasoning" }),
  ];
  const page = projectReplies(turn, TURN);
  assert.deepEqual([page.lastConsumedItemId, page.stopped], ["big", true]);
});

Deno.test("projectReplies() throws protocol_error on an item of another turn", () => {
  const turn = [...BASIC_TURN, entry({ type: "reasoning", id: "r" }, "another-turn")];
  assertProtocolError(() => projectReplies(turn, TURN));
});

Deno.test("projectReplies() throws protocol_error on a consumed item without a string id", () => {
  assertProtocolError(() => projectReplies([...BASIC_TURN, entry({ type: "reasoning" })], TURN));
  assertProtocolError(() => projectReplies([entry({ type: "plan", id: 3 })], TURN));
});

Deno.test("projectReplies() fits a reply of exactly 16384 bytes and reports that more may follow", () => {
  const text = "a".repeat(16384);
  const page = projectReplies([agent("exact", "final_answer", text)], TURN);
  assert.deepEqual(page, {
    replies: [{ itemId: "exact", text, truncated: false }],
    lastConsumedItemId: "exact",
    budgetLeft: 0,
    stopped: true,
  });
});

Deno.test("projectReplies() truncates a reply one byte past the budget", () => {
  const page = projectReplies([agent("over", "final_answer", "a".repeat(16385))], TURN);
  assert.equal(page.replies.length, 1);
  assert.equal(page.replies[0].text, "a".repeat(16384));
  assert.equal(page.replies[0].truncated, true);
  assert.equal(page.budgetLeft, 0);
  assert.equal(page.stopped, true);
  assert.equal(page.lastConsumedItemId, "over");
});

Deno.test("projectReplies() drops a 4-byte character straddling the limit whole", () => {
  const text = "a".repeat(16382) + "😀" + "tail";
  const page = projectReplies([agent("emoji", "final_answer", text)], TURN);
  const [reply] = page.replies;
  assert.equal(reply.text, "a".repeat(16382));
  assert.equal(reply.truncated, true);
  assert.equal(bytes(reply.text), 16382);
  assert.equal(page.budgetLeft, 2);
  assert.equal(page.stopped, true);
  // The same character ending exactly at the limit is kept.
  const fits = projectReplies([agent("e", "final_answer", "a".repeat(16380) + "😀")], TURN);
  assert.equal(fits.replies[0].truncated, false);
  assert.equal(fits.replies[0].text.endsWith("😀"), true);
});

Deno.test("projectReplies() shares one budget among the replies of a page", () => {
  const turn = [
    agent("f1", "final_answer", "a".repeat(10000)),
    agent("c", "commentary", "b".repeat(10000)),
    agent("f2", "final_answer", "é".repeat(5000)), // 10000 bytes
    agent("f3", "final_answer", "never reached"),
  ];
  const page = projectReplies(turn, TURN);
  assert.deepEqual(page.replies.map((r) => [r.itemId, bytes(r.text), r.truncated]), [
    ["f1", 10000, false],
    ["f2", 6384, true],
  ]);
  assert.equal(page.lastConsumedItemId, "f2");
  assert.equal(page.stopped, true);
});

Deno.test("projectReplies() stops at an exact boundary without consuming the next item", () => {
  const turn = [
    agent("f1", "final_answer", "a".repeat(16384)),
    agent("c", "commentary", "skipped later"),
    agent("f2", "final_answer", "next page"),
  ];
  const first = projectReplies(turn, TURN);
  assert.equal(first.lastConsumedItemId, "f1");
  assert.equal(first.stopped, true);
  const second = projectReplies(after(turn, first.lastConsumedItemId), TURN, fresh("f1"));
  assert.deepEqual(second.replies, [{ itemId: "f2", text: "next page", truncated: false }]);
  assert.equal(second.stopped, false);
});

Deno.test("projectReplies() continues with the next item, not the rest of a truncated one", () => {
  const big = "START" + "x".repeat(20000) + "REMAINDER";
  const turn = [
    ...BASIC_TURN.slice(0, 2),
    agent("big_final", "final_answer", big),
    agent("c2", "commentary", "between"),
    agent("next_final", "final_answer", "the next reply"),
  ];
  // First result: the item anchor is the user item (exclusive).
  const first = projectReplies(after(turn, USER_ID), TURN);
  assert.equal(first.replies.length, 1);
  assert.equal(first.replies[0].itemId, "big_final");
  assert.equal(first.replies[0].truncated, true);
  assert.ok(first.replies[0].text.startsWith("START"));
  assert.ok(!first.replies[0].text.includes("REMAINDER"));
  assert.equal(first.lastConsumedItemId, "big_final");
  // Continuation (a new result, a new budget) from the reply cursor's anchor.
  const second = projectReplies(after(turn, first.lastConsumedItemId), TURN, fresh("big_final"));
  assert.deepEqual(second.replies, [
    { itemId: "next_final", text: "the next reply", truncated: false },
  ]);
  assert.ok(!JSON.stringify(second).includes("REMAINDER"));
  assert.equal(second.lastConsumedItemId, "next_final");
  assert.equal(second.stopped, false);
});

Deno.test("projectReplies() carries the budget and position across pages of one result", () => {
  const page1 = [agent("f1", "final_answer", "a".repeat(10000)), reasoning("r1", "hidden")];
  const page2 = [
    agent("c", "commentary", "hidden"),
    agent("f2", "final_answer", "b".repeat(10000)),
  ];
  const s1 = projectReplies(page1, TURN);
  assert.deepEqual(
    [s1.lastConsumedItemId, s1.budgetLeft, s1.stopped],
    ["r1", REPLY_BUDGET_BYTES - 10000, false],
  );
  const s2 = projectReplies(page2, TURN, s1);
  assert.deepEqual(s2.replies.map((r) => [r.itemId, r.text.length, r.truncated]), [
    ["f2", 6384, true],
  ]);
  assert.equal(s2.budgetLeft, 0);
  assert.equal(s2.stopped, true);
  assert.equal(s2.lastConsumedItemId, "f2");
});

Deno.test("projectReplies() counts skipped items as consumed", () => {
  const turn = [
    agent("f", "final_answer", "ok"),
    agent("c", "commentary", "x"),
    reasoning("r", "y"),
  ];
  const page = projectReplies(turn, TURN);
  assert.equal(page.lastConsumedItemId, "r");
  assert.equal(page.stopped, false);
  const nothing = projectReplies([user(USER_ID, "cum-basic-1", "hi"), reasoning("r0", "y")], TURN);
  assert.deepEqual(nothing, {
    replies: [],
    lastConsumedItemId: "r0",
    budgetLeft: REPLY_BUDGET_BYTES,
    stopped: false,
  });
});

Deno.test("projectReplies() keeps the position of an empty page", () => {
  assert.deepEqual(projectReplies([], TURN, fresh("msg_1_c")), {
    replies: [],
    lastConsumedItemId: "msg_1_c",
    budgetLeft: REPLY_BUDGET_BYTES,
    stopped: false,
  });
});

Deno.test("projectReplies() consumes nothing once stopped or out of budget", () => {
  const stopped = { lastConsumedItemId: "f1", budgetLeft: 3, stopped: true };
  assert.deepEqual(projectReplies(BASIC_TURN, TURN, stopped), { ...stopped, replies: [] });
  const spent = { lastConsumedItemId: "f1", budgetLeft: 0, stopped: false };
  assert.deepEqual(projectReplies(BASIC_TURN, TURN, spent), {
    ...spent,
    stopped: true,
    replies: [],
  });
});

Deno.test("projectReplies() honours a lowered budget", () => {
  const state = { lastConsumedItemId: null, budgetLeft: 10, stopped: false };
  const page = projectReplies(BASIC_TURN, TURN, state);
  assert.deepEqual(page.replies, [{ itemId: "msg_1_final", text: "Echo #1: f", truncated: true }]);
});

Deno.test("projectReplies() rejects an invalid budget", () => {
  for (const budgetLeft of [-1, 0.5, Number.NaN]) {
    const state = { lastConsumedItemId: null, budgetLeft, stopped: false };
    assert.throws(() => projectReplies(BASIC_TURN, TURN, state), RangeError);
  }
});

Deno.test("projectReplies() returns well-formed text for a lone surrogate", () => {
  const page = projectReplies([agent("s", "final_answer", "a\ud800b")], TURN);
  assert.equal(page.replies[0].text, "a\ufffdb");
  assert.equal(page.budgetLeft, REPLY_BUDGET_BYTES - 5);
});

Deno.test("projectReplies() never exceeds the budget over random pages (property)", () => {
  const item = fc.oneof(
    fc.record({
      kind: fc.constant("final" as const),
      text: fc.string({ unit: "grapheme", maxLength: 3000 }),
    }),
    fc.record({
      kind: fc.constantFrom("commentary" as const, "partial" as const, "reasoning" as const),
      text: fc.string({ maxLength: 50 }),
    }),
  );
  fc.assert(
    fc.property(
      fc.array(item, { maxLength: 30 }),
      fc.integer({ min: 1, max: 20000 }),
      (items, budget) => {
        const turn = items.map((it, i) =>
          it.kind === "final"
            ? agent(`f${i}`, "final_answer", it.text)
            : it.kind === "reasoning"
            ? reasoning(`r${i}`, it.text)
            : agent(`o${i}`, it.kind === "partial" ? "partial_answer" : "commentary", it.text)
        );
        const page = projectReplies(turn, TURN, {
          lastConsumedItemId: null,
          budgetLeft: budget,
          stopped: false,
        });
        const used = page.replies.reduce((n, r) => n + bytes(r.text), 0);
        assert.equal(used + page.budgetLeft, budget);
        assert.ok(page.replies.every((r) => r.itemId.startsWith("f")));
        assert.ok(page.replies.slice(0, -1).every((r) => !r.truncated));
        const consumed = page.lastConsumedItemId === null
          ? 0
          : turn.findIndex((e) => e.item.id === page.lastConsumedItemId) + 1;
        assert.equal(
          page.stopped,
          consumed < turn.length || page.budgetLeft === 0 ||
            page.replies.at(-1)?.truncated === true,
        );
        // Every final up to the last consumed item was projected, in order.
        const finals = turn.slice(0, consumed).filter((e) => e.item.phase === "final_answer");
        assert.deepEqual(page.replies.map((r) => r.itemId), finals.map((e) => e.item.id));
      },
    ),
    { numRuns: 300 },
  );
});
