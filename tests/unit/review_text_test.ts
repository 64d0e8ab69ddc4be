/**
 * A review's findings and verdict: from the reviewer's JSON answer (read from its sub-agent thread,
 * captures 46 for 0.169 and 0.171), else from Codex's exact rendering (transcripts 21); a text
 * that only looks like a rendering never gives findings, and a clean review reads `no_findings`.
 */
import assert from "assert";
import {
  parseRendering,
  parseReviewerAnswer,
  reviewResult,
  reviewVerdict,
} from "../../src/reply/review_text.ts";
import capture169 from "../../fixtures/captures/46-compact-usage-review-0.169.0.json" with {
  type: "json",
};
import capture171 from "../../fixtures/captures/46-compact-usage-review-0.171.0.json" with {
  type: "json",
};

/** The exitedReviewMode text of transcript 21 (0.169 and 0.171 alike). */
const CAPTURED =
  "Mock review: one blocking issue.\n\nReview comment:\n\n- [P1] Mock finding: division by zero — $ROOT/workspace/calc.js:2-2\n  calc() divides by b without checking b != 0.";

const FINDING = {
  priority: 1,
  title: "Mock finding: division by zero",
  file: "$ROOT/workspace/calc.js",
  lineStart: 2,
  lineEnd: 2,
  body: "calc() divides by b without checking b != 0.",
};

/** A plain-text answer (or an explanation) shaped exactly like Codex's rendering of a P0. */
const SPOOF = "All good.\n\nReview comment:\n\n- [P0] Made-up crash — /w/a.ts:1-1\n  not real";

/** The reviewer's raw answer of `marker` in a capture (its sub-agent thread's final answer). */
function raw(capture: typeof capture169, marker: "REVIEW_JSON" | "REVIEW_CLEAN" | "REVIEW_PLAIN") {
  const item = capture[marker].subAgentItems.data.find((e) => e.item.type === "agentMessage")!;
  return (item.item as { text: string }).text;
}

Deno.test("parseRendering: the captured rendering gives its one finding", () => {
  assert.deepEqual(parseRendering(CAPTURED), [FINDING]);
  assert.deepEqual(parseRendering(CAPTURED.slice(CAPTURED.indexOf("Review comment:"))), [FINDING]);
});

Deno.test("parseRendering: several findings under 'Full review comments:', multi-line bodies", () => {
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
  assert.deepEqual(
    parseRendering(text).map((f) => [f.priority, f.title, f.file, f.lineStart, f.lineEnd, f.body]),
    [
      [0, "Crash on empty input", "/w/a.ts", 10, 14, "first line\n\nsecond paragraph"],
      [null, "Untagged title", "/w/dir with space/b.ts", 3, 3, "body b"],
    ],
  );
  // The header must fit the count.
  assert.deepEqual(parseRendering(text.replace("Full review comments:", "Review comment:")), []);
  const one = "E\n\nFull review comments:\n\n- [P1] t — /a:1-1";
  assert.deepEqual(parseRendering(one), []);
});

Deno.test("parseRendering: anything but the exact shape has no findings", () => {
  const texts = [
    "Plain text review, not JSON.",
    "Review comment:",
    // Text before the header without the blank line, or the finding without its blank line.
    "See:\nReview comment:\n\n- [P0] x — /a:1-1",
    "See:\n\nReview comment:\n- [P0] x — /a:1-1",
    // Text after the findings, an explanation with surrounding spaces, an empty explanation.
    CAPTURED + "\nmore",
    CAPTURED + "\n\ntrailing",
    " " + CAPTURED,
    "x \n\nReview comment:\n\n- [P0] x — /a:1-1",
    "\n\nReview comment:\n\n- [P0] x — /a:1-1",
    // Lines without the finding format.
    "x\n\nReview comment:\n\n- [P2] no location here\n  body",
    "x\n\nReview comment:\n\n- [P1] bad range — /w/a.ts:7",
    "x\n\nReview comment:\n\n- [P1] hyphen not em dash - /w/a.ts:1-2",
    "- [P1] t — /w/a.ts:1-2\n  b",
    // A header or finding line with anything before or after it.
    "x\n\nNote: Review comment:\n\n- [P0] x — /a:1-1",
    "x\n\nReview comment: below\n\n- [P0] x — /a:1-1",
    "x\n\nReview comment:\n\nx- [P0] x — /a:1-1",
    "x\n\nReview comment:\n\n- [P0] x — /a:1-1 (see above)",
    // No blank line before the header, a line instead of the blank before a finding.
    "a\nb\nReview comment:\n\n- [P0] x — /a:1-1",
    "x\n\nReview comment:\nY\n- [P0] x — /a:1-1",
    // An explanation that starts or ends with a blank line.
    "\nx\n\nReview comment:\n\n- [P0] x — /a:1-1",
    "x\n\n\nReview comment:\n\n- [P0] x — /a:1-1",
  ];
  for (const text of texts) assert.deepEqual(parseRendering(text), [], JSON.stringify(text));
  // The block is the last header: an explanation that holds one is still an explanation.
  const held = "Say:\nReview comment:\nno\n\nReview comment:\n\n- [P2] real — /a:3-4\n  b";
  assert.deepEqual(parseRendering(held).map((f) => f.title), ["real"]);
});

for (const capture of [capture169, capture171]) {
  Deno.test(`parseReviewerAnswer: the reviewer's captured answers (${capture.codexVersion})`, () => {
    const json = parseReviewerAnswer(raw(capture, "REVIEW_JSON"))!;
    assert.equal(json.correct, false);
    assert.deepEqual(json.findings.map((f) => [f.priority, f.title, f.lineStart, f.lineEnd]), [
      [1, "Mock finding: division by zero", 2, 2],
    ]);
    assert.match(json.findings[0].file, /\/workspace\/calc\.js$/);
    assert.equal(json.findings[0].body, FINDING.body);
    assert.deepEqual(parseReviewerAnswer(raw(capture, "REVIEW_CLEAN")), {
      findings: [],
      correct: true,
    });
    assert.equal(parseReviewerAnswer(raw(capture, "REVIEW_PLAIN")), null);
  });
}

Deno.test("parseReviewerAnswer: only the whole text as the review JSON", () => {
  const finding = {
    title: "[P2] t",
    body: "b",
    priority: 3,
    code_location: { absolute_file_path: "/a", line_range: { start: 1, end: 2 } },
  };
  const answer = (over: Record<string, unknown>, f: Record<string, unknown> = {}) =>
    JSON.stringify({
      findings: [{ ...finding, ...f }],
      overall_correctness: "patch is incorrect",
      overall_explanation: "e",
      ...over,
    });
  assert.deepEqual(parseReviewerAnswer(answer({}))!.findings[0], {
    priority: 3,
    title: "t",
    file: "/a",
    lineStart: 1,
    lineEnd: 2,
    body: "b",
  });
  assert.equal(parseReviewerAnswer(answer({}, { priority: undefined }))!.findings[0].priority, 2);
  assert.equal(
    parseReviewerAnswer(answer({}, { priority: undefined, title: "t" }))!.findings[0].priority,
    null,
  );
  const refused = [
    "Here it is: " + answer({}),
    answer({}) + " done",
    "[]",
    "null",
    answer({ findings: {} }),
    answer({ overall_correctness: 1 }),
    answer({ overall_explanation: null }),
    answer({}, { title: 1 }),
    answer({}, { body: null }),
    answer({}, { priority: 1.5 }),
    answer({}, { code_location: null }),
    answer({}, { code_location: { absolute_file_path: "", line_range: { start: 1, end: 1 } } }),
    answer({}, { code_location: { absolute_file_path: 5, line_range: { start: 1, end: 1 } } }),
    answer({}, { code_location: { absolute_file_path: "/a", line_range: { start: 0, end: 1 } } }),
    answer({}, { code_location: { absolute_file_path: "/a", line_range: { start: 3, end: 2 } } }),
    answer({}, { code_location: { absolute_file_path: "/a", line_range: { start: 1, end: "2" } } }),
    answer({}, { code_location: { absolute_file_path: "/a" } }),
    JSON.stringify({ findings: ["x"], overall_correctness: "c", overall_explanation: "e" }),
  ];
  for (const text of refused) assert.equal(parseReviewerAnswer(text), null, text);
  assert.equal(
    parseReviewerAnswer(answer({ overall_correctness: "patch is correct " }))!.correct,
    false,
  );
  // A title's [P<n>] prefix gives the priority only at its start (spaces around trimmed).
  const titled = (title: string) => {
    const f = parseReviewerAnswer(answer({}, { priority: undefined, title }))!.findings[0];
    return [f.priority, f.title];
  };
  assert.deepEqual(titled(" [P1] t "), [1, "t"]);
  assert.deepEqual(titled("[P12] t"), [12, "t"]);
  assert.deepEqual(titled("[P1]t"), [1, "t"]);
  assert.deepEqual(titled("x [P1] t"), [null, "x [P1] t"]);
  assert.deepEqual(titled(" t "), [null, "t"]);
  assert.deepEqual(titled("[P1] a\nb"), [null, "[P1] a\nb"]);
});

Deno.test("reviewResult: findings from the reviewer's JSON when read, none when it was not JSON, else the exact rendering's", () => {
  const mine = { ...FINDING, title: "from JSON" };
  assert.deepEqual(reviewResult(CAPTURED, { findings: [mine], correct: false }).findings, [mine]);
  assert.deepEqual(reviewResult(SPOOF, null), { text: SPOOF, findings: [], truncated: false });
  assert.deepEqual(reviewResult(CAPTURED, undefined).findings, [FINDING]);
  assert.deepEqual(reviewResult(SPOOF + "\nafter", undefined).findings, []);
});

Deno.test("reviewResult: the text is cut at the bound, the findings kept whole within it", () => {
  const text = "x".repeat(100);
  const cut = reviewResult(text, undefined, 10);
  assert.deepEqual([cut.text, cut.truncated], ["x".repeat(10), true]);
  const f = (title: string) => ({ ...FINDING, title, body: "b", file: "/f" }); // 3 + 1 + 2 bytes
  const kept = reviewResult("", { findings: [f("one"), f("two"), f("six")], correct: false }, 12);
  assert.deepEqual([kept.findings.map((x) => x.title), kept.truncated], [["one", "two"], true]);
  const all = reviewResult("", { findings: [f("one"), f("two")], correct: false }, 12);
  assert.deepEqual([all.findings.length, all.truncated], [2, false]);
  // A finding's title, body and file all count.
  const big = { ...f("t"), body: "b".repeat(10) }; // 13 bytes
  assert.deepEqual(reviewResult("", { findings: [big], correct: false }, 12).findings, []);
  assert.deepEqual(reviewResult("", { findings: [big], correct: false }, 13).findings, [big]);
  // The default bound is the 16 KiB reply page.
  const long = reviewResult("é".repeat(10_000), null);
  assert.equal(new TextEncoder().encode(long.text).length, 16384);
});

Deno.test("reviewVerdict from the reviewer's JSON: findings, no_findings only when clean and correct", () => {
  const clean = { findings: [], correct: true };
  assert.deepEqual(reviewVerdict("completed", CAPTURED, { findings: [FINDING], correct: false }), {
    verdict: "findings",
  });
  assert.deepEqual(reviewVerdict("completed", "Mock review: no issues.", clean), {
    verdict: "no_findings",
  });
  // A clean JSON whose explanation mimics a finding: what it says, no made-up P0.
  assert.deepEqual(reviewVerdict("completed", SPOOF, clean), { verdict: "no_findings" });
  assert.deepEqual(reviewVerdict("completed", "No comment.", { findings: [], correct: false }), {
    verdict: "failed",
    verdictReason: "unconfirmed",
  });
});

Deno.test("reviewVerdict: an answer shaped like the rendering is never findings", () => {
  // The reviewer answered plain text shaped like Codex's rendering: Codex passes it through.
  assert.deepEqual(reviewVerdict("completed", SPOOF, null), {
    verdict: "failed",
    verdictReason: "unparseable",
  });
  // Without the reviewer's answer: findings only from the exact rendering, never no_findings.
  assert.deepEqual(reviewVerdict("completed", CAPTURED, undefined), { verdict: "findings" });
  for (const text of ["Looks good to me.", "See:\nReview comment:\n- [P0] x — /a:1-1"]) {
    assert.deepEqual(reviewVerdict("completed", text, undefined), {
      verdict: "failed",
      verdictReason: "unconfirmed",
    }, text);
  }
});

Deno.test("reviewVerdict: a failed, interrupted, unfinished, empty or reviewer-failed review is failed with its reason", () => {
  const answer = { findings: [FINDING], correct: false };
  const cases: [Parameters<typeof reviewVerdict>, string][] = [
    [["failed", CAPTURED, answer], "run_failed"],
    [["interrupted", CAPTURED, answer], "run_interrupted"],
    [["running", CAPTURED, answer], "not_ended"],
    [["completed", undefined, answer], "no_review"],
    [["completed", "  \n", answer], "no_review"],
    [["completed", "Reviewer failed to output a response.", answer], "reviewer_failed"],
    [["completed", " Reviewer failed to output a response.\n", undefined], "reviewer_failed"],
  ];
  for (const [args, reason] of cases) {
    assert.deepEqual(reviewVerdict(...args), { verdict: "failed", verdictReason: reason }, reason);
  }
});
