/**
 * A code review's result (`review/start`): the rendered text of the
 * `exitedReviewMode` item, the reviewer's own answer (the JSON Codex's review
 * prompt asks for, stored on the review's sub-agent thread), the findings and
 * the verdict. Pure: no I/O.
 *
 * The rendering, as Codex 0.169 and 0.171 produce it (docs/codex-protocol.md,
 * "Code review"; transcripts 21): the reviewer's overall explanation, a blank
 * line, a header line (`Review comment:` for one finding, `Full review
 * comments:` for several), then per finding a blank line, `- <title> — <absolute
 * path>:<start>-<end>` and the body's lines indented by two spaces. A reviewer
 * answer that was not the review JSON passes through verbatim, so a rendering
 * can be mimicked: the verdict comes from the reviewer's JSON when the relay
 * could read it.
 * @module
 */

import { REPLY_BUDGET_BYTES } from "./project_replies.ts";
import { utf8Truncate } from "./utf8_truncate.ts";
import type { VerdictReason } from "./job_schemas.ts";

/** One finding of a review. */
export interface ReviewFinding {
  /** The finding's priority (0 is the most urgent), or null when it has none. */
  priority: number | null;
  /** The title, without its `[P<n>]` prefix. */
  title: string;
  /** The absolute path of the file the finding is about. */
  file: string;
  /** The first line of the range. */
  lineStart: number;
  /** The last line of the range. */
  lineEnd: number;
  /** The finding's explanation. */
  body: string;
}

/** A review as the relay returns it. */
export interface ReviewResult {
  /** The rendered review, whole unless `truncated` (a bounded prefix of it). */
  text: string;
  /** The findings ({@linkcode reviewResult}). */
  findings: ReviewFinding[];
  /** Whether `text` (or the findings) was cut at the page bound. */
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

/** The reviewer's JSON answer, as far as the verdict needs it. */
export interface ReviewerAnswer {
  /** Its findings. */
  findings: ReviewFinding[];
  /** Whether its `overall_correctness` is exactly "patch is correct". */
  correct: boolean;
}

const HEADER = /^(Review comment|Full review comments):$/;
const FINDING = /^- (.+) \u2014 (.+):(\d+)-(\d+)$/;
const PRIORITY = /^\[P(\d+)\]\s*(.*)$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isLine = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1;

/**
 * The reviewer's raw answer parsed strictly as the review JSON Codex asks for
 * (`{findings: [{title, body, priority?, code_location: {absolute_file_path,
 * line_range: {start, end}}}], overall_correctness, overall_explanation}`),
 * the whole text and nothing else; null when it is not that.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const raw = '{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"ok"}';
 * assert.deepEqual(parseReviewerAnswer(raw), { findings: [], correct: true });
 * assert.equal(parseReviewerAnswer("Plain text review, not JSON."), null);
 * ```
 */
export function parseReviewerAnswer(raw: string): ReviewerAnswer | null {
  let value: unknown;
  try {
    // Stryker disable BlockStatement: the catch block below: without its return, value stays undefined, which the next line refuses alike
    value = JSON.parse(raw);
  } catch {
    // Stryker restore BlockStatement
    return null;
  }
  if (!isObj(value) || !Array.isArray(value.findings)) return null;
  if (typeof value.overall_correctness !== "string") return null;
  if (typeof value.overall_explanation !== "string") return null;
  const findings: ReviewFinding[] = [];
  for (const f of value.findings) {
    const parsed = answerFinding(f);
    if (parsed === null) return null;
    findings.push(parsed);
  }
  return { findings, correct: value.overall_correctness === "patch is correct" };
}

function answerFinding(f: unknown): ReviewFinding | null {
  if (!isObj(f) || typeof f.title !== "string" || typeof f.body !== "string") return null;
  const at = isObj(f.code_location) ? f.code_location : {};
  const range = isObj(at.line_range) ? at.line_range : {};
  const file = at.absolute_file_path;
  if (typeof file !== "string" || file === "") return null;
  if (!isLine(range.start) || !isLine(range.end) || range.end < range.start) return null;
  if (f.priority !== undefined && !Number.isSafeInteger(f.priority)) return null;
  const titled = titleOf(f.title);
  return {
    priority: (f.priority as number | undefined) ?? titled.priority,
    title: titled.title,
    file,
    lineStart: range.start,
    lineEnd: range.end,
    body: f.body,
  };
}

/**
 * The findings of `text` when the whole text is Codex's rendering exactly
 * (an optional explanation and a blank line, the header that fits the count,
 * each finding after a blank line with its body indented by two spaces,
 * nothing before or after); otherwise none.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const text = "One issue.\n\nReview comment:\n\n- [P1] Division by zero — /w/calc.js:2-2\n  b may be 0.";
 * assert.deepEqual(parseRendering(text)[0], {
 *   priority: 1, title: "Division by zero", file: "/w/calc.js", lineStart: 2, lineEnd: 2, body: "b may be 0.",
 * });
 * assert.deepEqual(parseRendering("See:\nReview comment:\n- [P0] x — /a:1-1"), []);
 * ```
 */
export function parseRendering(text: string): ReviewFinding[] {
  const lines = text.split("\n");
  // The block is the text's last header line: an explanation may hold one too.
  const header = lines.findLastIndex((line) => HEADER.test(line));
  // No header (-1): lines[-2] is undefined, so the text is not explained and not a bare block.
  // Codex trims the explanation and puts one blank line before the block.
  const explanation = lines.slice(0, Math.max(header - 1, 0)).join("\n");
  const explained = lines[header - 1] === "" && explanation !== "" &&
    explanation.trim() === explanation;
  if (header !== 0 && !explained) return [];
  const findings: ReviewFinding[] = [];
  let i = header + 1;
  while (i < lines.length) {
    // Past the end, lines[i + 1] is undefined: exec reads "undefined", never a finding.
    const match = lines[i] === "" ? FINDING.exec(lines[i + 1]) : null;
    if (match === null) return [];
    i += 2;
    const body: string[] = [];
    while (i < lines.length && lines[i].startsWith("  ")) body.push(lines[i++].slice(2));
    findings.push(rendered(match, body.join("\n")));
  }
  const plural = lines[header] === "Full review comments:";
  // No finding (a header ending the text): `findings` is [] either way.
  return plural === (findings.length > 1) ? findings : [];
}

/**
 * The review a run returns: the rendered `text` under the reply page bound
 * ({@linkcode REPLY_BUDGET_BYTES}, cut on a character boundary) and its
 * findings: the reviewer's JSON's when the relay read its answer (`answer`:
 * its findings, none when it was not the JSON), else those of Codex's exact
 * rendering ({@linkcode parseRendering}). Findings are kept whole while their
 * title, body and file fit within the bound together; the rest are left out
 * (`truncated`).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const text = "Looks fine.";
 * assert.deepEqual(reviewResult(text, { findings: [], correct: true }).findings, []);
 * ```
 */
export function reviewResult(
  text: string,
  answer: ReviewerAnswer | null | undefined,
  maxBytes: number = REPLY_BUDGET_BYTES,
): ReviewResult {
  const kept = utf8Truncate(text, maxBytes);
  const all = answer === undefined ? parseRendering(text) : answer?.findings ?? [];
  const findings: ReviewFinding[] = [];
  let room = maxBytes;
  for (const f of all) {
    room -= new TextEncoder().encode(f.title + f.body + f.file).length;
    if (room < 0) break;
    findings.push(f);
  }
  return { text: kept.text, findings, truncated: kept.truncated || findings.length < all.length };
}

/**
 * The verdict of a review run that ended `status` with the rendered `text`
 * (absent when Codex stored none) and the reviewer's `answer` (its JSON; null
 * when its answer was not the JSON; absent when the relay could not read it),
 * failing closed. From the JSON: `findings` when it has findings,
 * `no_findings` when it has none and says "patch is correct", else `failed`
 * (`unconfirmed`). Without it (Codex no longer storing the answer where
 * 0.169-0.171 do): `findings` only when the whole text is Codex's exact
 * rendering with findings, never `no_findings`. Otherwise `failed`: a run that
 * did not complete, no review, Codex's {@linkcode REVIEWER_FAILED}, an answer
 * that was not the JSON (`unparseable`).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(reviewVerdict("completed", "Plain text review, not JSON.", null), {
 *   verdict: "failed",
 *   verdictReason: "unparseable",
 * });
 * ```
 */
export function reviewVerdict(
  status: "completed" | "failed" | "interrupted" | "running",
  text: string | undefined,
  answer: ReviewerAnswer | null | undefined,
): { verdict: ReviewVerdict; verdictReason?: VerdictReason } {
  const failed = (verdictReason: VerdictReason) => ({ verdict: "failed" as const, verdictReason });
  if (status === "failed") return failed("run_failed");
  if (status === "interrupted") return failed("run_interrupted");
  if (status === "running") return failed("not_ended");
  if (text === undefined || text.trim() === "") return failed("no_review");
  if (text.trim() === REVIEWER_FAILED) return failed("reviewer_failed");
  if (answer === null) return failed("unparseable");
  if (answer === undefined) {
    return parseRendering(text).length > 0 ? { verdict: "findings" } : failed("unconfirmed");
  }
  if (answer.findings.length > 0) return { verdict: "findings" };
  return answer.correct ? { verdict: "no_findings" } : failed("unconfirmed");
}

function titleOf(raw: string): { priority: number | null; title: string } {
  const priority = PRIORITY.exec(raw.trim());
  return priority
    ? { priority: Number(priority[1]), title: priority[2] }
    : { priority: null, title: raw.trim() };
}

function rendered(match: RegExpExecArray, body: string): ReviewFinding {
  const [, rawTitle, file, start, end] = match;
  return { ...titleOf(rawTitle), file, lineStart: Number(start), lineEnd: Number(end), body };
}
