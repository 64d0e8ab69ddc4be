/**
 * Codex's rendered code review (`review/start`): the text of the
 * `exitedReviewMode` item (and of the phase-null agent message that repeats
 * it), split into its findings. Pure: no I/O.
 *
 * The rendering, as Codex 0.169 and 0.171 produce it (docs/codex-protocol.md,
 * "Code review"; transcripts 21): the reviewer's overall explanation, a blank
 * line, a header line (`Review comment:` for one finding, `Full review
 * comments:` for several), then per finding a blank line, `- <title> — <absolute
 * path>:<start>-<end>` and the body's lines indented by two spaces. The title
 * is the model's and usually begins with `[P<priority>]`. A reviewer answer
 * that was not the review JSON passes through verbatim (no header).
 * @module
 */

import { REPLY_BUDGET_BYTES } from "./project_replies.ts";
import { utf8Truncate } from "./utf8_truncate.ts";
import type { VerdictReason } from "./job_schemas.ts";

/** One finding of a review, as the rendered text gives it. */
export interface ReviewFinding {
  /** The `[P<n>]` of the title (0 is the most urgent), or null when the title has none. */
  priority: number | null;
  /** The title, without its `[P<n>]` prefix. */
  title: string;
  /** The absolute path of the file the finding is about. */
  file: string;
  /** The first line of the range. */
  lineStart: number;
  /** The last line of the range. */
  lineEnd: number;
  /** The finding's explanation (its indented lines, indentation removed). */
  body: string;
}

/** A review as the relay returns it. */
export interface ReviewResult {
  /** The rendered review, whole unless `truncated` (a bounded prefix of it). */
  text: string;
  /** The findings the text holds in Codex's format; the others stay only in `text`. */
  findings: ReviewFinding[];
  /** Whether `text` was cut at the page bound. */
  truncated: boolean;
  /** What the review says, failing closed ({@linkcode reviewVerdict}); set once the run ended. */
  verdict?: ReviewVerdict;
  /** Why the verdict is `failed` (one of `VERDICT_REASONS`). */
  verdictReason?: VerdictReason;
}

/** A review's verdict: only `findings` and `no_findings` can be acted on as a review. */
export type ReviewVerdict = "findings" | "no_findings" | "failed";

/** Codex's text when the reviewer gave no usable answer (0.169, 0.171; transcripts 21). */
export const REVIEWER_FAILED = "Reviewer failed to output a response.";

const HEADER = /^(Review comment|Full review comments):\s*$/;
const FINDING = /^- (.+) \u2014 (.+):(\d+)-(\d+)\s*$/;
const PRIORITY = /^\[P(\d+)\]\s*(.*)$/;

/**
 * Parses Codex's rendered review `text`: the text itself under the reply page
 * bound ({@linkcode REPLY_BUDGET_BYTES}, cut on a character boundary), and the
 * findings that the kept text holds whole. A line that does not have the
 * finding format is not a finding (it stays in `text`); nothing is invented.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const review = parseReview(
 *   "One issue.\n\nReview comment:\n\n- [P1] Division by zero — /w/calc.js:2-2\n  b may be 0.",
 * );
 * assert.deepEqual(review.findings[0], {
 *   priority: 1,
 *   title: "Division by zero",
 *   file: "/w/calc.js",
 *   lineStart: 2,
 *   lineEnd: 2,
 *   body: "b may be 0.",
 * });
 * ```
 */
export function parseReview(text: string, maxBytes: number = REPLY_BUDGET_BYTES): ReviewResult {
  const kept = utf8Truncate(text, maxBytes);
  const lines = kept.text.split("\n");
  const header = lines.findIndex((line) => HEADER.test(line));
  const findings: ReviewFinding[] = [];
  if (header === -1) return { text: kept.text, findings, truncated: kept.truncated };
  let i = header + 1;
  while (i < lines.length) {
    const match = FINDING.exec(lines[i]);
    i++;
    if (!match) continue;
    const body: string[] = [];
    while (i < lines.length && (lines[i].startsWith("  ") || lines[i] === " ")) {
      body.push(lines[i].slice(2));
      i++;
    }
    // A finding that reaches the cut may have lost part of its body: it stays in the text only.
    if (kept.truncated && i >= lines.length) break;
    findings.push(finding(match, body.join("\n").trimEnd()));
  }
  return { text: kept.text, findings, truncated: kept.truncated };
}

/**
 * The verdict of a review run that ended `status` with the rendered review
 * `review` (absent when Codex stored none), failing closed: `findings` only
 * when the text is Codex's rendering with at least one finding parsed;
 * `failed` for a run that did not complete, no review, Codex's
 * {@linkcode REVIEWER_FAILED}, a comment header without a finding
 * (`unparseable`), and a text without findings (`unconfirmed`: Codex renders
 * a well-formed review without comment as its explanation alone, the same
 * text as a reviewer's non-JSON answer passed through verbatim, so the relay
 * cannot tell a clean review from a garbage one). `no_findings` needs a
 * review known to be well formed, which Codex 0.169-0.171 never make visible.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(reviewVerdict("completed", parseReview("Plain text review, not JSON.")), {
 *   verdict: "failed",
 *   verdictReason: "unconfirmed",
 * });
 * ```
 */
export function reviewVerdict(
  status: "completed" | "failed" | "interrupted" | "running",
  review: ReviewResult | undefined,
): { verdict: ReviewVerdict; verdictReason?: VerdictReason } {
  const failed = (verdictReason: VerdictReason) => ({ verdict: "failed" as const, verdictReason });
  if (status === "failed") return failed("run_failed");
  if (status === "interrupted") return failed("run_interrupted");
  if (status === "running") return failed("not_ended");
  if (review === undefined || review.text.trim() === "") return failed("no_review");
  if (review.text.trim() === REVIEWER_FAILED) return failed("reviewer_failed");
  if (review.findings.length > 0) return { verdict: "findings" };
  const lines = review.text.split("\n");
  return failed(lines.some((line) => HEADER.test(line)) ? "unparseable" : "unconfirmed");
}

function finding(match: RegExpExecArray, body: string): ReviewFinding {
  const [, rawTitle, file, start, end] = match;
  const priority = PRIORITY.exec(rawTitle.trim());
  return {
    priority: priority ? Number(priority[1]) : null,
    title: priority ? priority[2] : rawTitle.trim(),
    file,
    lineStart: Number(start),
    lineEnd: Number(end),
    body,
  };
}
