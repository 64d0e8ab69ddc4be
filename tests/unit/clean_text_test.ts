/** Issue 39: the one rule of text sent to Codex (message text, a review's fields). */

import assert from "assert";
import { cleanText, MAX_TEXT_BYTES, messageText, textIssue } from "../../src/reply/inputs.ts";

Deno.test("textIssue: empty, lone surrogates, NUL and the byte bound are refused, in that order; the rest is taken", () => {
  const issue = (s: string, max = MAX_TEXT_BYTES) => textIssue(s, "The text", max);
  assert.equal(issue(""), "The text is empty");
  assert.match(issue("a\ud800")!, /lone surrogate/);
  assert.match(issue("\udc00\0")!, /lone surrogate/);
  assert.equal(issue("a\0b"), "The text contains a NUL character");
  // Bounded in UTF-8 bytes, not UTF-16 units: 3 characters of 2 bytes are 6 bytes.
  assert.equal(issue("ééé", 5), "The text is 6 bytes of UTF-8; the limit is 5");
  assert.equal(issue("ééé", 6), undefined);
  assert.equal(issue("😀\u0085\n"), undefined);
});

Deno.test("cleanText and messageText refuse what textIssue refuses, with its words", () => {
  const refs = cleanText("The base", 4);
  assert.equal(refs.safeParse("main").success, true);
  const bad = refs.safeParse("mains");
  assert.equal(bad.success, false);
  assert.match(bad.error!.issues[0].message, /^The base is 5 bytes/);
  assert.equal(messageText.safeParse("x\ud800").success, false);
  assert.equal(messageText.safeParse("é".repeat(MAX_TEXT_BYTES / 2)).success, true);
  assert.equal(messageText.safeParse("é".repeat(MAX_TEXT_BYTES / 2) + "x").success, false);
});
