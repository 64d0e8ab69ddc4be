import assert from "assert";
import { RelayError } from "../../src/core/errors.ts";
import { systemClock } from "../../src/core/clock.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import type { Session } from "../../src/connect/connection.ts";
import { decodeBase64Url, encodeBase64Url } from "../../src/reply/_base64url.ts";
import {
  buildReadResult,
  decodeCursor,
  matchUserItem,
  projectReplies,
  utf8Truncate,
} from "../../src/reply/mod.ts";
import type { ReadReplyResult } from "../../src/reply/schemas.ts";
import type { ReadReplyInput } from "../../src/ops/read_reply.ts";
import { WAIT_SECONDS } from "../../src/ops/wait_reply.ts";
import { readWait } from "../../testing/read_wait.ts";

const THREAD = "01a22a5c-6698-7df3-813e-7166a248c477";
const TURN = "01a22a5c-66dd-7f43-a294-c1ac8dd820ae";
const SCOPE = { threadId: THREAD, clientMessageId: "c1" };

// ------------------------------------------------------------------ base64url

Deno.test("base64url: canonical unpadded text only", () => {
  const bytes = new Uint8Array([0xfb, 0xff, 0xbf, 0x00]);
  assert.equal(encodeBase64Url(bytes), "-_-_AA");
  assert.deepEqual(decodeBase64Url("-_-_AA"), bytes);
  assert.deepEqual(decodeBase64Url(""), new Uint8Array());
  assert.equal(decodeBase64Url("A"), null, "a length of 4n+1 is never canonical");
  assert.equal(decodeBase64Url("AAAAA"), null);
  assert.equal(decodeBase64Url("+/+/"), null, "the standard alphabet is refused");
  assert.equal(decodeBase64Url("AA=="), null, "padding is refused");
  assert.equal(decodeBase64Url("AB"), null, "non-zero trailing bits are refused");
  assert.equal(decodeBase64Url("AF"), null);
  assert.deepEqual(decodeBase64Url("AA"), new Uint8Array([0]));
  assert.deepEqual(decodeBase64Url("AAE"), new Uint8Array([0, 1]));
  assert.equal(decodeBase64Url("AAF"), null);
});

// ------------------------------------------------------------------ cursors

Deno.test("decodeCursor: base64url text that is not JSON is invalid_cursor, not a crash", () => {
  for (const json of ["not json", "", "[1]", "null", '"s"', "\ufeff{}"]) {
    const text = encodeBase64Url(new TextEncoder().encode(json));
    assert.throws(
      () => decodeCursor(text || "A", { ...SCOPE, kind: "reply" }),
      (e) =>
        e instanceof RelayError && e.reason === "invalid_cursor" &&
        e.message === "The cursor is not valid for this thread and message",
      json,
    );
  }
});

// ------------------------------------------------------------------ utf8

Deno.test("utf8Truncate: U+007F is 1 byte, U+0080 2, U+0800 3, a pair 4", () => {
  assert.equal(utf8Truncate("\u007f", 10).bytes, 1);
  assert.equal(utf8Truncate("\u0080", 10).bytes, 2);
  assert.equal(utf8Truncate("\u07ff", 10).bytes, 2);
  assert.equal(utf8Truncate("\u0800", 10).bytes, 3);
  assert.equal(utf8Truncate("😀", 10).bytes, 4);
  // Past the fast path (length * 3 > maxBytes): the same sizes.
  assert.deepEqual(utf8Truncate("\u0080\u0080x", 4), {
    text: "\u0080\u0080",
    bytes: 4,
    truncated: true,
  });
  assert.deepEqual(utf8Truncate("a😀b", 5), { text: "a😀", bytes: 5, truncated: true });
  assert.deepEqual(utf8Truncate("a😀b", 4), { text: "a", bytes: 1, truncated: true });
});

Deno.test("utf8Truncate: lone surrogates count 3 bytes each and are never paired with a neighbour", () => {
  assert.deepEqual(utf8Truncate("a\udc00", 1), { text: "a", bytes: 1, truncated: true });
  assert.deepEqual(utf8Truncate("\udc00\udc00", 3), { text: "\udc00", bytes: 3, truncated: true });
  assert.deepEqual(utf8Truncate("\ud800a", 3), { text: "\ud800", bytes: 3, truncated: true });
  assert.deepEqual(utf8Truncate("\ud800\ud800", 3), { text: "\ud800", bytes: 3, truncated: true });
  assert.deepEqual(utf8Truncate("ab\ud800", 4), { text: "ab", bytes: 2, truncated: true });
  assert.deepEqual(utf8Truncate("ab\ud800", 5), { text: "ab\ud800", bytes: 5, truncated: false });
  assert.deepEqual(utf8Truncate("\udbff\udfff", 3), { text: "", bytes: 0, truncated: true });
  assert.deepEqual(utf8Truncate("\udbff\ue000", 3), { text: "\udbff", bytes: 3, truncated: true });
  assert.deepEqual(utf8Truncate("\ud7ff\udc00", 3), { text: "\ud7ff", bytes: 3, truncated: true });
});

// ------------------------------------------------------------------ matcher and projector

const user = { type: "userMessage", id: "u1", clientId: "c1", content: [] };

Deno.test("matchUserItem: an entry without an item is skipped; a match without a turn id fails closed", () => {
  assert.deepEqual(matchUserItem([{ turnId: TURN } as never], "c1"), { kind: "no_match" });
  assert.throws(
    () => matchUserItem([{ turnId: 5, item: user } as never], "c1"),
    (e) =>
      e instanceof RelayError && e.reason === "protocol_error" &&
      e.message === "Unexpected app-server result: entry.turnId",
  );
  assert.deepEqual(
    matchUserItem([{ turnId: 5, item: { ...user, clientId: "c2" } } as never], "c1"),
    {
      kind: "no_match",
    },
  );
});

Deno.test("projectReplies: the budget must be a non-negative integer", () => {
  for (const budgetLeft of [-1, 1.5, NaN]) {
    assert.throws(
      () => projectReplies([], TURN, { budgetLeft, lastConsumedItemId: null, stopped: false }),
      (e) => e instanceof RangeError && e.message === "budgetLeft must be a non-negative integer",
    );
  }
  assert.deepEqual(
    projectReplies([], TURN, { budgetLeft: 0, lastConsumedItemId: "x", stopped: false }),
    { replies: [], lastConsumedItemId: "x", budgetLeft: 0, stopped: true },
  );
});

Deno.test("projectReplies: malformed pages fail closed with what was wrong", () => {
  const cases: [unknown[], string][] = [
    [[{ turnId: "other", item: user }], "an item of another turn in the matched turn's page"],
    [[{ turnId: TURN, item: { type: "reasoning" } }], "item.id"],
    [[{ turnId: TURN, item: { type: "reasoning", id: 7 } }], "item.id"],
    [[{ turnId: TURN }], "item"],
  ];
  for (const [entries, what] of cases) {
    assert.throws(
      () => projectReplies(entries as never, TURN),
      (e) =>
        e instanceof RelayError && e.reason === "protocol_error" &&
        e.message.startsWith("Unexpected app-server result: ") && e.message.includes(what),
      what,
    );
  }
});

// ------------------------------------------------------------------ wait

Deno.test("codex_wait_reply bounds: 1..55 s per call, 30 by default", () => {
  assert.deepEqual({ ...WAIT_SECONDS }, { min: 1, max: 55, default: 30 });
});

const running = (): ReadReplyResult =>
  buildReadResult({
    ...SCOPE,
    match: { kind: "observed", turnId: TURN, itemId: "u1" },
    turnStatus: "unverified",
    replies: [],
  });

function session(signal = new AbortController().signal): Session {
  return {
    call: () => Promise.reject(new Error("no RPC")),
    signal,
    remainingMs: () => 1e9,
  };
}

Deno.test("waitOn() on a read message: without a cursor the request carries none; its deadline counts from its own start", async () => {
  const clock = new ManualClock();
  clock.advance(5_000); // The clock did not start with this wait.
  const seen: ReadReplyInput[] = [];
  const reports: number[] = [];
  const out = await readWait(session(), { ...SCOPE, timeoutSeconds: 1 }, {
    clock,
    onProgress: (p) => {
      reports.push(p.elapsedMs);
      while (clock.pending > 0) clock.advance(1);
    },
    read: (_s, input) => {
      seen.push(input);
      return Promise.resolve(running());
    },
  });
  assert.equal(out.timedOut, true);
  // WAIT_BACKOFF: 100 ms, then growing to at most 250 ms; a last read at the deadline.
  assert.deepEqual(reports, [0, 100, 300, 550, 800]);
  assert.equal(seen.length, 6);
  assert.deepEqual(seen[0], SCOPE);
  assert.ok(!("cursor" in seen[0]));
});

Deno.test("waitOn() on a read message: works without a progress listener", async () => {
  const out = await readWait(session(), { ...SCOPE, timeoutSeconds: 0.005 }, {
    clock: systemClock,
    backoff: { initialMs: 1, maxMs: 1 },
    read: () => Promise.resolve(running()),
  });
  assert.equal(out.timedOut, true);
});

Deno.test("waitOn() on a read message: an operation aborted during a read does not pause or read again", async () => {
  const clock = new ManualClock();
  const controller = new AbortController();
  let reads = 0;
  const out = await readWait(session(controller.signal), { ...SCOPE, timeoutSeconds: 30 }, {
    clock,
    read: () => {
      reads++;
      controller.abort();
      return Promise.resolve(running());
    },
  });
  assert.equal(reads, 1);
  assert.deepEqual([out.status, out.reason, out.timedOut], ["unavailable", "cancelled", false]);
  assert.equal(clock.pending, 0);
});
