/**
 * Codex's rendered review (transcripts 21, 0.169 and 0.171) parsed into findings: the text stays
 * whole, findings come only from lines in Codex's format, nothing is invented.
 */
import assert from "assert";
import { parseReview, reviewVerdict } from "../../src/reply/review_text.ts";

/** The exitedReviewMode text of transcript 21 (0.169 and 0.171 alike). */
const CAPTURED =
  "Mock review: one blocking issue.\n\nReview comment:\n\n- [P1] Mock finding: division by zero — $ROOT/workspace/calc.js:2-2\n  calc() divides by b without checking b != 0.";

Deno.test("parseReview: the captured rendering gives its one finding, text whole", () => {
  const review = parseReview(CAPTURED);
  assert.equal(review.text, CAPTURED);
  assert.equal(review.truncated, false);
  assert.deepEqual(review.findings, [{
    priority: 1,
    title: "Mock finding: division by zero",
    file: "$ROOT/workspace/calc.js",
    lineStart: 2,
    lineEnd: 2,
    body: "calc() divides by b without checking b != 0.",
  }]);
});

Deno.test("parseReview: several findings under 'Full review comments:', multi-line bodies", () => {
  const text = [
    "Two problems.",
    "",
    "Full review comments:",
    "",
    "- [P0] Crash on empty input — /w/a.ts:10-14",
    "  first line",
    "  ",
    "  second paragraph",
    "",
    "- Untagged title — /w/dir with space/b.ts:3-3",
    "  body b",
  ].join("\n");
  const review = parseReview(text);
  assert.deepEqual(
    review.findings.map((f) => [f.priority, f.title, f.file, f.lineStart, f.lineEnd, f.body]),
    [
      [0, "Crash on empty input", "/w/a.ts", 10, 14, "first line\n\nsecond paragraph"],
      [null, "Untagged title", "/w/dir with space/b.ts", 3, 3, "body b"],
    ],
  );
});

Deno.test("parseReview: a plain-text reviewer answer has no findings and passes verbatim", () => {
  const review = parseReview("Plain text review, not JSON.");
  assert.deepEqual(review, {
    text: "Plain text review, not JSON.",
    findings: [],
    truncated: false,
  });
});

Deno.test("parseReview: lines that do not have the finding format are not findings", () => {
  const text = [
    "x",
    "",
    "Review comment:",
    "",
    "- [P2] no location here",
    "  body",
    "- [P1] bad range — /w/a.ts:7",
    "- [P1] hyphen not em dash - /w/a.ts:1-2",
  ].join("\n");
  const review = parseReview(text);
  assert.deepEqual(review.findings, []);
  assert.equal(review.text, text);
});

Deno.test("parseReview: finding lines before the header are not findings", () => {
  const review = parseReview("- [P1] t — /w/a.ts:1-2\n  b");
  assert.deepEqual(review.findings, []);
});

Deno.test("parseReview: the text is cut at the bound; a finding reaching the cut is left in text", () => {
  const head = "E\n\nFull review comments:\n\n- [P1] one — /a:1-1\n  b1\n\n- [P2] two — /b:2-3\n  ";
  const text = head + "x".repeat(100);
  const bound = new TextEncoder().encode(head).length + 10;
  const review = parseReview(text, bound);
  assert.equal(review.truncated, true);
  assert.equal(review.text, text.slice(0, head.length + 10));
  assert.deepEqual(review.findings.map((f) => f.title), ["one"]);
  // Within the bound, both.
  assert.deepEqual(parseReview(text).findings.map((f) => f.title), ["one", "two"]);
});

Deno.test("parseReview: the default bound is the 16 KiB reply page", () => {
  const review = parseReview("é".repeat(10_000));
  assert.equal(review.truncated, true);
  assert.equal(new TextEncoder().encode(review.text).length, 16384);
});

Deno.test("reviewVerdict: findings only for Codex's rendering with a finding parsed", () => {
  assert.deepEqual(reviewVerdict("completed", parseReview(CAPTURED)), { verdict: "findings" });
});

Deno.test("reviewVerdict fails closed: a garbage or clean-looking answer is never no_findings", () => {
  // Codex renders a non-JSON answer verbatim and a clean review as its explanation: the same shape.
  for (const text of ["Plain text review, not JSON.", "{not json", "Looks good to me."]) {
    assert.deepEqual(reviewVerdict("completed", parseReview(text)), {
      verdict: "failed",
      verdictReason: "unconfirmed",
    }, text);
  }
});

Deno.test("reviewVerdict: a failed, interrupted, unfinished, empty or reviewer-failed review is failed with its reason", () => {
  const cases: [Parameters<typeof reviewVerdict>, string][] = [
    [["failed", parseReview(CAPTURED)], "run_failed"],
    [["interrupted", parseReview("Reviewer failed to output a response.")], "run_interrupted"],
    [["running", undefined], "not_ended"],
    [["completed", undefined], "no_review"],
    [["completed", parseReview("  \n")], "no_review"],
    [["completed", parseReview("Reviewer failed to output a response.")], "reviewer_failed"],
    [["completed", parseReview("Ok.\n\nReview comment:\n\n- no location here")], "unparseable"],
  ];
  for (const [args, reason] of cases) {
    assert.deepEqual(reviewVerdict(...args), { verdict: "failed", verdictReason: reason }, reason);
  }
});
