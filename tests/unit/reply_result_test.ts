import assert from "assert";
import type { ItemEntry, RawItem, Turn } from "../../src/codex/types.ts";
import {
  buildReadResult,
  decodeCursor,
  encodeCursor,
  isTerminal,
  matchUserItem,
  observedTurnStatus,
  projectReplies,
} from "../../src/reply/mod.ts";
import {
  type ReadReplyResult,
  readReplySchema,
  type Reply,
  RESULT_TURN_STATUSES,
} from "../../src/reply/schemas.ts";

const THREAD = "01a22a5c-6698-7df3-813e-7166a248c477";
const MESSAGE = "cum-noid";
const TURN = "01a22a5c-66dd-7f43-a294-c1ac8dd820ae";
const USER_ID = "01a22a5c-66e7-78d0-adef-c4fc230e8698";
const FINAL_ID = "msg_01a22a5c-66f9-7860-acfc-14f7d24a3eda";
const APP_CURSOR =
  '{"requestedThreadId":"01a22a5c-6698-7df3-813e-7166a248c477","rolloutOrdinal":8,"includeAnchor":false,"scope":{"kind":"itemsByCreatedAtOrdinal"}}';
const SCOPE = { threadId: THREAD, clientMessageId: MESSAGE };
const REPLY = { itemId: FINAL_ID, text: "Echo #3: message NOID", truncated: false };
const OBSERVED = { kind: "observed", turnId: TURN, itemId: USER_ID } as const;

function entry(turnId: string, item: Record<string, unknown>): ItemEntry {
  return { turnId, item: item as unknown as RawItem };
}

// 07-edge-cases: the "message NOID" turn (the provider sent no message ids).
const NOID_TURN: ItemEntry[] = [
  entry(TURN, {
    type: "userMessage",
    id: USER_ID,
    clientId: MESSAGE,
    content: [{ type: "text", text: "message NOID", text_elements: [] }],
  }),
  entry(TURN, {
    type: "agentMessage",
    moderation: null,
    id: "msg_01a22a5c-66f9-7860-acfc-14e21dc862df",
    text: "Looking at: message NOID",
    phase: "commentary",
    memoryCitation: null,
    delivery: null,
    questions: null,
  }),
  entry(TURN, {
    type: "agentMessage",
    moderation: null,
    id: FINAL_ID,
    text: "Echo #3: message NOID",
    phase: "final_answer",
    memoryCitation: null,
    delivery: null,
    questions: null,
  }),
];
const FAILED_TURN = "01a22a5c-6707-7021-9436-ccf199d3fcd5";
const DESC_PAGE: ItemEntry[] = [
  entry(FAILED_TURN, {
    type: "userMessage",
    id: "01a22a5c-6712-7a22-b6f6-7d1bb507d5be",
    clientId: "cum-fail",
    content: [{ type: "text", text: "message FAIL", text_elements: [] }],
  }),
  ...NOID_TURN.toReversed(),
];
const TURNS: Turn[] = [
  {
    id: FAILED_TURN,
    status: "failed",
    error: { message: "stream disconnected", codexErrorInfo: "other" },
    completedAt: 1796007028,
  },
  { id: TURN, status: "completed", error: null, completedAt: 1796007028 },
];

Deno.test("buildReadResult() builds an observed result with association and turn", () => {
  const result = buildReadResult({
    ...SCOPE,
    match: { kind: "observed", turnId: TURN, itemId: USER_ID },
    turnStatus: "completed",
    replies: [REPLY],
    nextCursor: "abc",
    searchCursor: "ignored",
  });
  assert.deepEqual(result, {
    status: "observed",
    threadId: THREAD,
    clientMessageId: MESSAGE,
    association: "same_turn_not_exclusive",
    turn: { id: TURN, status: "completed" },
    replies: [REPLY],
    nextCursor: "abc",
    searchCursor: null,
  });
  assert.equal("reason" in result, false);
});

Deno.test("buildReadResult() reports an observed turn without status as unverified", () => {
  const result = buildReadResult({
    ...SCOPE,
    match: { kind: "observed", turnId: TURN, itemId: USER_ID },
  });
  assert.deepEqual(result.turn, { id: TURN, status: "unverified" });
  assert.deepEqual(result.replies, []);
  assert.equal(result.nextCursor, null);
});

Deno.test("buildReadResult() copies only itemId, text and truncated of a reply", () => {
  const leaky = { ...REPLY, phase: "final_answer", memoryCitation: "x" };
  const result = buildReadResult({
    ...SCOPE,
    match: { kind: "observed", turnId: TURN, itemId: USER_ID },
    replies: [leaky],
  });
  assert.deepEqual(result.replies, [REPLY]);
  assert.notEqual(result.replies[0], leaky);
});

Deno.test("buildReadResult() passes on a moderated reply with the kind Codex named and no text", () => {
  const withheld: Reply[] = [
    { itemId: "msg_hide", moderated: true, replacement: "wellbeingPromptHelpline" },
    { itemId: "msg_block", moderated: true, blockReason: "cyber" },
    { itemId: "msg_bare", moderated: true },
  ];
  const leaky = withheld.map((r) => ({ ...r, text: "the withheld text", truncated: false }));
  const result = buildReadResult({ ...SCOPE, match: OBSERVED, replies: leaky as Reply[] });
  assert.deepEqual(result.replies, withheld);
});

// The server checks each result against the tool's output schema: one it refuses fails the call.
Deno.test("readReplySchema accepts every result buildReadResult() builds", () => {
  const replies: Reply[] = [REPLY, { itemId: "msg_m", moderated: true, blockReason: "cyber" }];
  const results = [
    ...[undefined, ...RESULT_TURN_STATUSES].map((turnStatus) =>
      buildReadResult({ ...SCOPE, match: OBSERVED, turnStatus, replies, nextCursor: "more" })
    ),
    buildReadResult({ ...SCOPE, match: { kind: "no_match" }, searchCursor: "older" }),
    buildReadResult({ ...SCOPE, match: { kind: "ambiguous", count: 2 } }),
    buildReadResult({ ...SCOPE, match: { kind: "unavailable", reason: "timeout" } }),
  ];
  for (const result of results) {
    const parsed = readReplySchema.safeParse(result);
    assert.ok(parsed.success, `${result.status} ${result.turn?.status}: ${parsed.error}`);
  }
});

Deno.test("readReplySchema refuses a turn without its id or with a status no read reports", () => {
  const result = buildReadResult({ ...SCOPE, match: OBSERVED, replies: [REPLY] });
  // inProgress: Codex's word for a running turn, which a read reports as running.
  for (const turn of [{ status: "completed" }, { id: TURN }, { id: TURN, status: "inProgress" }]) {
    const parsed = readReplySchema.safeParse({ ...result, turn });
    assert.equal(parsed.success, false, JSON.stringify(turn));
  }
});

Deno.test("buildReadResult() builds no_match with the search cursor and no text", () => {
  const result = buildReadResult({
    ...SCOPE,
    match: { kind: "no_match" },
    replies: [REPLY],
    turnStatus: "completed",
    nextCursor: "ignored",
    searchCursor: "older",
  });
  assert.deepEqual(result, {
    status: "no_match",
    threadId: THREAD,
    clientMessageId: MESSAGE,
    turn: null,
    replies: [],
    nextCursor: null,
    searchCursor: "older",
  });
  const last = buildReadResult({ ...SCOPE, match: { kind: "no_match" } });
  assert.equal(last.searchCursor, null);
});

Deno.test("buildReadResult() builds ambiguous without text, turn or cursors", () => {
  const result = buildReadResult({
    ...SCOPE,
    match: { kind: "ambiguous", count: 2 },
    replies: [REPLY],
    turnStatus: "completed",
    nextCursor: "ignored",
    searchCursor: "ignored",
  });
  assert.deepEqual(result, {
    status: "ambiguous",
    threadId: THREAD,
    clientMessageId: MESSAGE,
    turn: null,
    replies: [],
    nextCursor: null,
    searchCursor: null,
  });
});

Deno.test("buildReadResult() builds unavailable with its reason and no text", () => {
  for (
    const reason of [
      "thread_not_found",
      "legacy_history",
      "protocol_error",
      "invalid_cursor",
    ] as const
  ) {
    const result = buildReadResult({
      ...SCOPE,
      match: { kind: "unavailable", reason },
      replies: [REPLY],
      nextCursor: "ignored",
      searchCursor: "ignored",
    });
    assert.deepEqual(result, {
      status: "unavailable",
      reason,
      threadId: THREAD,
      clientMessageId: MESSAGE,
      turn: null,
      replies: [],
      nextCursor: null,
      searchCursor: null,
    });
  }
});

Deno.test("buildReadResult() sets association only when observed", () => {
  const outcomes = [
    { kind: "no_match" as const },
    { kind: "ambiguous" as const, count: 3 },
    { kind: "unavailable" as const, reason: "timeout" as const },
  ];
  for (const match of outcomes) {
    const result = buildReadResult({ ...SCOPE, match });
    assert.equal("association" in result, false, match.kind);
    assert.equal(JSON.stringify(result).includes("same_turn_not_exclusive"), false);
  }
});

Deno.test("buildReadResult() assembles a read of the NOID turn from pure parts", () => {
  const match = matchUserItem(DESC_PAGE, MESSAGE);
  assert.equal(match.kind, "observed");
  if (match.kind !== "observed") return;
  const items = NOID_TURN.slice(NOID_TURN.findIndex((e) => e.item.id === match.itemId) + 1);
  const page = projectReplies(items, match.turnId);
  const status = observedTurnStatus(TURNS, match.turnId);
  const more = page.stopped || !isTerminal(status);
  const nextCursor = more
    ? encodeCursor({
      v: 1,
      kind: "reply",
      ...SCOPE,
      userItemId: match.itemId,
      turnId: match.turnId,
      lastItemId: page.lastConsumedItemId,
    })
    : null;
  const result: ReadReplyResult = buildReadResult({
    ...SCOPE,
    match,
    turnStatus: status,
    replies: page.replies,
    nextCursor,
  });
  assert.deepEqual(result, {
    status: "observed",
    threadId: THREAD,
    clientMessageId: MESSAGE,
    association: "same_turn_not_exclusive",
    turn: { id: TURN, status: "completed" },
    replies: [REPLY],
    nextCursor: null,
    searchCursor: null,
  });
});

Deno.test("buildReadResult() carries a reply cursor for a turn running elsewhere", () => {
  const turns: Turn[] = [{ id: TURN, status: "interrupted", error: null, completedAt: null }];
  const status = observedTurnStatus(turns, TURN);
  const page = projectReplies(NOID_TURN.slice(1, 2), TURN); // only the commentary so far
  const nextCursor = encodeCursor({
    v: 1,
    kind: "reply",
    ...SCOPE,
    userItemId: USER_ID,
    turnId: TURN,
    lastItemId: page.lastConsumedItemId,
  });
  const result = buildReadResult({
    ...SCOPE,
    match: { kind: "observed", turnId: TURN, itemId: USER_ID },
    turnStatus: status,
    replies: page.replies,
    nextCursor,
  });
  assert.deepEqual(result.turn, { id: TURN, status: "unverified" });
  assert.deepEqual(result.replies, []);
  const cursor = decodeCursor(result.nextCursor!, { ...SCOPE, kind: "reply" });
  assert.equal(cursor.lastItemId, "msg_01a22a5c-66f9-7860-acfc-14e21dc862df");
});

Deno.test("buildReadResult() carries a search cursor when the search page had an older page", () => {
  const match = matchUserItem(DESC_PAGE, "cum-not-here");
  const searchCursor = encodeCursor({ v: 1, kind: "search", ...SCOPE, appCursor: APP_CURSOR });
  const result = buildReadResult({ ...SCOPE, match, searchCursor });
  assert.equal(result.status, "no_match");
  assert.equal(
    decodeCursor(result.searchCursor!, { ...SCOPE, kind: "search" }).appCursor,
    APP_CURSOR,
  );
});
