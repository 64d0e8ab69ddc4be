import assert from "assert";
import fc from "fast-check";
import { RelayError } from "../../src/core/errors.ts";
import { encodeBase64Url } from "../../src/reply/_base64url.ts";
import {
  decodeCursor,
  encodeCursor,
  MAX_APP_CURSOR_CHARS,
  MAX_CURSOR_ID_CHARS,
  MAX_CURSOR_TEXT_CHARS,
} from "../../src/reply/mod.ts";
import type {
  CursorData,
  CursorKind,
  CursorScope,
  ReplyCursorData,
  SearchCursorData,
} from "../../src/reply/mod.ts";

// Ids and an app-server cursor as in transcripts/02-read-methods.json.
const THREAD = "01a22a5b-b405-7103-8c06-aadc414fed88";
const MESSAGE = "cum-basic-1";
const APP_CURSOR =
  '{"requestedThreadId":"01a22a5b-b405-7103-8c06-aadc414fed88","rolloutOrdinal":42,"includeAnchor":false,"scope":{"kind":"itemsByCreatedAtOrdinal"}}';

const REPLY: ReplyCursorData = {
  v: 1,
  kind: "reply",
  threadId: THREAD,
  clientMessageId: MESSAGE,
  userItemId: "01a22a5b-b433-7c10-bca6-0fa5da83c96a",
  turnId: "01a22a5b-b41a-7e51-8a8b-b71346ecbe4b",
  lastItemId: "msg_1_final",
};
const SEARCH: SearchCursorData = {
  v: 1,
  kind: "search",
  threadId: THREAD,
  clientMessageId: MESSAGE,
  appCursor: APP_CURSOR,
};
const REPLY_SCOPE = { threadId: THREAD, clientMessageId: MESSAGE, kind: "reply" } as const;
const SEARCH_SCOPE = { threadId: THREAD, clientMessageId: MESSAGE, kind: "search" } as const;

/** An independent base64url encoder (btoa) for hand-made cursor texts. */
function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}
const fromJson = (json: string) => b64url(new TextEncoder().encode(json));
const forge = (value: unknown) => fromJson(JSON.stringify(value));

function isInvalidCursor(e: unknown): boolean {
  return e instanceof RelayError && e.reason === "invalid_cursor";
}

function assertInvalid(text: string, scope: CursorScope = REPLY_SCOPE, label = text): void {
  assert.throws(() => decodeCursor(text, scope), isInvalidCursor, label.slice(0, 80));
}

function assertProtocolError(fn: () => unknown): void {
  assert.throws(fn, (e: unknown) => e instanceof RelayError && e.reason === "protocol_error");
}

Deno.test("encodeCursor() produces unpadded base64url of versioned JSON", () => {
  const text = encodeCursor(REPLY);
  assert.match(text, /^[A-Za-z0-9_-]+$/);
  const json = new TextDecoder().decode(
    Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0)),
  );
  assert.deepEqual(JSON.parse(json), REPLY);
  assert.equal(text, forge(REPLY));
});

Deno.test("decodeCursor() round-trips reply and search cursors", () => {
  assert.deepEqual(decodeCursor(encodeCursor(REPLY), REPLY_SCOPE), REPLY);
  assert.deepEqual(decodeCursor(encodeCursor(SEARCH), SEARCH_SCOPE), SEARCH);
  const fromStart = { ...REPLY, lastItemId: null };
  assert.deepEqual(decodeCursor(encodeCursor(fromStart), REPLY_SCOPE), fromStart);
});

Deno.test("decodeCursor() round-trips ids at the length cap and non-ASCII ids", () => {
  const data = {
    ...REPLY,
    clientMessageId: "é😀".repeat(MAX_CURSOR_ID_CHARS / 4) + "x".repeat(MAX_CURSOR_ID_CHARS / 4),
    userItemId: "u".repeat(MAX_CURSOR_ID_CHARS),
  };
  assert.equal(data.clientMessageId.length, MAX_CURSOR_ID_CHARS);
  const scope = { ...REPLY_SCOPE, clientMessageId: data.clientMessageId };
  assert.deepEqual(decodeCursor(encodeCursor(data), scope), data);
  const longApp = { ...SEARCH, appCursor: "c".repeat(MAX_APP_CURSOR_CHARS) };
  assert.deepEqual(decodeCursor(encodeCursor(longApp), SEARCH_SCOPE), longApp);
});

Deno.test("decodeCursor() rejects a cursor of another thread, message or kind", () => {
  assertInvalid(encodeCursor(REPLY), {
    ...REPLY_SCOPE,
    threadId: "01a22a5c-6698-7df3-813e-7166a248c477",
  });
  assertInvalid(encodeCursor(REPLY), { ...REPLY_SCOPE, clientMessageId: "cum-basic-2" });
  assertInvalid(encodeCursor(REPLY), { ...REPLY_SCOPE, clientMessageId: "CUM-BASIC-1" });
  assertInvalid(encodeCursor(REPLY), SEARCH_SCOPE);
  assertInvalid(encodeCursor(SEARCH), REPLY_SCOPE);
});

Deno.test("decodeCursor() rejects texts that are not canonical base64url", () => {
  const text = encodeCursor(REPLY);
  const cases = [
    "",
    "=",
    "A",
    "A".repeat(MAX_CURSOR_TEXT_CHARS + 1),
    "x".repeat(1_000_000),
    text + "=",
    text + "==",
    text.replaceAll("-", "+").replaceAll("_", "/") + "+/",
    ` ${text}`,
    `${text}\n`,
    text.slice(0, 10) + "." + text.slice(11),
    text.slice(0, -1),
    text + "A",
    "not a cursor!",
    "😀😀😀😀",
  ];
  for (const c of cases) assertInvalid(c);
});

Deno.test("decodeCursor() rejects non-zero trailing bits", () => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  let seen = 0;
  for (const lastItemId of ["m", "mm", "mmm"]) {
    const text = encodeCursor({ ...REPLY, lastItemId });
    if (text.length % 4 === 0) continue;
    seen++;
    // Same bytes, but a non-zero bit after the last byte.
    const bumped = text.slice(0, -1) + alphabet[alphabet.indexOf(text.at(-1)!) + 1];
    assertInvalid(bumped, REPLY_SCOPE);
  }
  assert.equal(seen, 2);
});

Deno.test("decodeCursor() rejects JSON that is not a cursor object", () => {
  const cases = ["[]", "null", "1", '"s"', "true", "{}", "{", "[".repeat(4000), '{"v":1}'];
  for (const json of cases) assertInvalid(fromJson(json), REPLY_SCOPE, json);
  assertInvalid(b64url(new Uint8Array([0xff, 0xfe, 0x7b, 0x7d])), REPLY_SCOPE, "invalid UTF-8");
  // Invalid UTF-8 inside a string of otherwise valid data (U+FFFD would make a sane id).
  const bytes = new TextEncoder().encode(JSON.stringify(REPLY));
  bytes[bytes.indexOf("_".charCodeAt(0))] = 0xff;
  assertInvalid(b64url(bytes), REPLY_SCOPE, "invalid UTF-8 in an id");
  assertInvalid(fromJson("\ufeff" + JSON.stringify(REPLY)), REPLY_SCOPE, "BOM");
});

Deno.test("decodeCursor() rejects other versions and wrong field types", () => {
  const cases: unknown[] = [
    { ...REPLY, v: 2 },
    { ...REPLY, v: 0 },
    { ...REPLY, v: "1" },
    { ...REPLY, v: null },
    { ...REPLY, kind: "other" },
    { ...REPLY, threadId: 1 },
    { ...REPLY, clientMessageId: null },
    { ...REPLY, userItemId: ["x"] },
    { ...REPLY, turnId: {} },
    { ...REPLY, lastItemId: 7 },
    { ...SEARCH, kind: "reply" },
    { ...SEARCH, appCursor: null },
    { ...SEARCH, appCursor: 42 },
  ];
  for (const value of cases) {
    const scope = (value as { kind: string }).kind === "search" ? SEARCH_SCOPE : REPLY_SCOPE;
    assertInvalid(forge(value), scope, JSON.stringify(value));
  }
});

Deno.test("decodeCursor() rejects missing and extra fields", () => {
  const { lastItemId: _l, ...missing } = REPLY;
  const { appCursor: _a, ...missingApp } = SEARCH;
  assertInvalid(forge(missing));
  assertInvalid(forge(missingApp), SEARCH_SCOPE);
  assertInvalid(forge({ ...REPLY, extra: 1 }));
  assertInvalid(forge({ ...REPLY, appCursor: APP_CURSOR }));
  assertInvalid(forge({ ...SEARCH, lastItemId: null }), SEARCH_SCOPE);
  const proto = JSON.stringify(REPLY).replace("{", '{"__proto__":{"x":1},');
  assertInvalid(fromJson(proto));
});

Deno.test("decodeCursor() rejects other spellings of valid data", () => {
  assertInvalid(fromJson(JSON.stringify(REPLY, null, 1)));
  const { v, kind, ...rest } = REPLY;
  const reordered = { ...rest, kind, v };
  assert.notEqual(JSON.stringify(reordered), JSON.stringify(REPLY));
  assertInvalid(forge(reordered));
  assertInvalid(fromJson(JSON.stringify(REPLY).replace('"v":1', '"v":1.0')));
  assertInvalid(fromJson(JSON.stringify(REPLY).replace("msg_1_final", "msg\\u005f1_final")));
});

Deno.test("decodeCursor() rejects ids with control characters, lone surrogates or bad lengths", () => {
  const bad = [
    "",
    "a\u0000b",
    "a\nb",
    "tab\t",
    "\u001b[31m",
    "del\u007f",
    "c1\u0085",
    "\ud800",
    "x\udc00y",
    "x".repeat(MAX_CURSOR_ID_CHARS + 1),
  ];
  for (const id of bad) {
    for (const field of ["threadId", "clientMessageId", "userItemId", "turnId", "lastItemId"]) {
      const value = { ...REPLY, [field]: id };
      const scope = {
        ...REPLY_SCOPE,
        [field === "threadId" ? "threadId" : "clientMessageId"]:
          field === "threadId" || field === "clientMessageId" ? id : MESSAGE,
      };
      assertInvalid(forge(value), scope, `${field}=${JSON.stringify(id)}`);
    }
  }
  for (const app of ["", "a\u0000", "x".repeat(MAX_APP_CURSOR_CHARS + 1), "\ud800"]) {
    assertInvalid(forge({ ...SEARCH, appCursor: app }), SEARCH_SCOPE, JSON.stringify(app));
  }
});

Deno.test("decodeCursor() throws invalid_cursor for any non-string input or bad scope", () => {
  // The last: the characters of a valid cursor, one per array element.
  for (const text of [null, undefined, 42, {}, ["x"], [...encodeCursor(REPLY)]]) {
    assert.throws(() => decodeCursor(text as unknown as string, REPLY_SCOPE), isInvalidCursor);
  }
  for (const scope of [null, undefined, 5, "reply"]) {
    assert.throws(
      () => decodeCursor(encodeCursor(REPLY), scope as unknown as CursorScope),
      isInvalidCursor,
    );
  }
});

Deno.test("encodeCursor() throws protocol_error for data it could not decode", () => {
  assertProtocolError(() => encodeCursor({ ...REPLY, lastItemId: "a\nb" }));
  assertProtocolError(() => encodeCursor({ ...REPLY, turnId: "" }));
  assertProtocolError(() =>
    encodeCursor({ ...REPLY, userItemId: "x".repeat(MAX_CURSOR_ID_CHARS + 1) })
  );
  assertProtocolError(() =>
    encodeCursor({ ...SEARCH, appCursor: "x".repeat(MAX_APP_CURSOR_CHARS + 1) })
  );
  assertProtocolError(() => encodeCursor({ ...SEARCH, appCursor: "\ud800" }));
  assertProtocolError(() => encodeCursor({ ...REPLY, v: 2 } as unknown as CursorData));
  assertProtocolError(() => encodeCursor({ ...REPLY, extra: 1 } as unknown as CursorData));
  // Within the caps, but JSON escaping of quotes would exceed the text cap.
  const quoted = '"'.repeat(MAX_APP_CURSOR_CHARS);
  assertProtocolError(() => encodeCursor({ ...SEARCH, appCursor: quoted }));
});

// --- property: random mutations -------------------------------------------

const OTHER_IDS = [
  THREAD,
  MESSAGE,
  "cum-basic-2",
  "01a22a5c-6698-7df3-813e-7166a248c477",
  "",
  "a\nb",
  "x".repeat(201),
];
const fieldValue = fc.oneof(
  fc.constantFrom<unknown>(
    ...OTHER_IDS,
    "reply",
    "search",
    "other",
    0,
    1,
    2,
    "1",
    1.5,
    null,
    true,
    [],
    {},
  ),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.jsonValue({ maxDepth: 2 }),
);
const fieldName = fc.constantFrom(
  "v",
  "kind",
  "threadId",
  "clientMessageId",
  "userItemId",
  "turnId",
  "lastItemId",
  "appCursor",
  "extra",
  "__proto__",
);

type Mutation = (text: string, data: CursorData) => string;

const byteFlips: fc.Arbitrary<Mutation> = fc
  .array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 })
  .map((flips) => (_text: string, data: CursorData) => {
    const bytes = new TextEncoder().encode(JSON.stringify(data));
    for (const [at, xor] of flips) bytes[at % bytes.length] ^= xor;
    return b64url(bytes);
  });

const charEdits: fc.Arbitrary<Mutation> = fc
  .array(fc.tuple(fc.nat(), fc.string({ minLength: 1, maxLength: 1, unit: "binary" })), {
    minLength: 1,
    maxLength: 4,
  })
  .map((edits) => (text: string) => {
    let out = text;
    for (const [at, c] of edits) {
      const i = at % out.length;
      out = out.slice(0, i) + c + out.slice(i + 1);
    }
    return out;
  });

const truncations: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fc.string({ maxLength: 8 }))
  .map(([n, tail]) => (text: string) => text.slice(0, n % (text.length + 1)) + tail);

const jsonEdits: fc.Arbitrary<Mutation> = fc
  .array(fc.tuple(fieldName, fc.option(fieldValue, { nil: undefined })), {
    minLength: 1,
    maxLength: 3,
  })
  .map((edits) => (_text: string, data: CursorData) => {
    const o: Record<string, unknown> = { ...data };
    for (const [key, value] of edits) {
      if (value === undefined) delete o[key];
      else {Object.defineProperty(o, key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });}
    }
    return forge(o);
  });

const randomStrings: fc.Arbitrary<Mutation> = fc
  .oneof(
    fc.string({ unit: "binary", maxLength: 200 }),
    fc.stringMatching(/^[A-Za-z0-9_-]{0,400}$/),
    fc.jsonValue().map((v) => forge(v)),
  )
  .map((s) => () => s);

Deno.test("decodeCursor() only returns data of the expected scope or throws invalid_cursor (10,000 mutations)", () => {
  let accepted = 0;
  let rejected = 0;
  const base = fc.constantFrom<CursorData>(REPLY, SEARCH, { ...REPLY, lastItemId: null });
  fc.assert(
    fc.property(
      base,
      fc.oneof(byteFlips, charEdits, truncations, jsonEdits, jsonEdits, randomStrings),
      fc.constantFrom<CursorKind>("reply", "search"),
      (data, mutate, kind) => {
        const text = mutate(encodeCursor(data), data);
        const expected: CursorScope = { threadId: THREAD, clientMessageId: MESSAGE, kind };
        let decoded: CursorData;
        try {
          decoded = decodeCursor(text, expected);
        } catch (e) {
          assert.ok(isInvalidCursor(e), `unexpected ${e}`);
          rejected++;
          return;
        }
        accepted++;
        assert.deepEqual(
          {
            threadId: decoded.threadId,
            clientMessageId: decoded.clientMessageId,
            kind: decoded.kind,
          },
          expected,
        );
        assert.equal(decoded.v, 1);
        assert.equal(encodeCursor(decoded), text);
      },
    ),
    { numRuns: 10_000 },
  );
  // Both outcomes occurred: the property is not vacuous.
  assert.ok(accepted > 0, "no mutation was accepted");
  assert.ok(rejected > 0, "no mutation was rejected");
});

Deno.test("decodeCursor() round-trips any valid cursor data (property)", () => {
  const id = fc.string({ minLength: 1, maxLength: MAX_CURSOR_ID_CHARS, unit: "grapheme" })
    .filter((s) => s.length <= MAX_CURSOR_ID_CHARS && /^[^\p{Cc}\p{Cs}]+$/u.test(s));
  const data: fc.Arbitrary<CursorData> = fc.oneof(
    fc.record({
      v: fc.constant(1 as const),
      kind: fc.constant("reply" as const),
      threadId: id,
      clientMessageId: id,
      userItemId: id,
      turnId: id,
      lastItemId: fc.option(id, { nil: null }),
    }),
    fc.record({
      v: fc.constant(1 as const),
      kind: fc.constant("search" as const),
      threadId: id,
      clientMessageId: id,
      appCursor: fc.string({ minLength: 1, maxLength: 300 }).filter((s) => /^[^\p{Cc}]+$/u.test(s)),
    }),
  );
  fc.assert(
    fc.property(data, (d) => {
      const text = encodeCursor(d);
      assert.ok(text.length <= MAX_CURSOR_TEXT_CHARS);
      assert.deepEqual(decodeCursor(text, d), { ...d });
    }),
    { numRuns: 500 },
  );
});

/** Search-cursor data whose cursor text is `chars` long (or the nearest length over it). */
function searchOfTextLength(chars: number): { data: SearchCursorData; text: string } {
  const base = { ...SEARCH, appCursor: "" };
  const length = (appCursor: string) =>
    encodeBase64Url(new TextEncoder().encode(JSON.stringify({ ...base, appCursor }))).length;
  // "é" is two UTF-8 bytes: fill with it, then ASCII to land on the length wanted.
  let appCursor = "";
  while (length(appCursor + "é") <= chars && appCursor.length < MAX_APP_CURSOR_CHARS) {
    appCursor += "é";
  }
  while (length(appCursor + "a") <= chars && appCursor.length < MAX_APP_CURSOR_CHARS) {
    appCursor += "a";
  }
  if (length(appCursor) < chars) appCursor += "a";
  const data = { ...base, appCursor };
  return { data, text: encodeBase64Url(new TextEncoder().encode(JSON.stringify(data))) };
}

Deno.test(`a cursor text of exactly ${MAX_CURSOR_TEXT_CHARS} characters is encoded and decoded; past it neither`, () => {
  const at = searchOfTextLength(MAX_CURSOR_TEXT_CHARS);
  assert.equal(at.text.length, MAX_CURSOR_TEXT_CHARS);
  assert.equal(encodeCursor(at.data), at.text);
  assert.deepEqual(decodeCursor(at.text, SEARCH_SCOPE), at.data);
  const past = searchOfTextLength(MAX_CURSOR_TEXT_CHARS + 1);
  assert.ok(past.text.length > MAX_CURSOR_TEXT_CHARS, `${past.text.length}`);
  assert.ok(past.data.appCursor.length <= MAX_APP_CURSOR_CHARS, "every field within its own bound");
  assert.throws(() => encodeCursor(past.data), /cannot be encoded/);
  assertInvalid(past.text, SEARCH_SCOPE);
});
