import assert from "assert";
import { RelayError } from "../../src/core/errors.ts";
import { decodeBase64Url, encodeBase64Url } from "../../src/reply/_base64url.ts";
import { decodeCursor, matchUserItem, projectReplies, utf8Truncate } from "../../src/reply/mod.ts";

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
