/**
 * The result shapes of Codex's own jobs and of what a run costs (issue 42):
 * a review and its verdict, a run's token usage, `codex_usage`, `codex_fork`
 * and `codex_compact`. Part of the one source of result shapes: re-exported by
 * `schemas.ts`, which results import.
 * @module
 */

import { z } from "zod";

/** Why a review's verdict is `failed` (`reviewVerdict` in `review_text.ts`). */
export const VERDICT_REASONS = [
  "run_failed",
  "run_interrupted",
  "not_ended",
  "no_review",
  "reviewer_failed",
  "unparseable",
  "unconfirmed",
] as const;

/** One of {@linkcode VERDICT_REASONS}. */
export type VerdictReason = typeof VERDICT_REASONS[number];

/** One finding of a review (`src/reply/review_text.ts`). */
export const reviewFindingSchema = z.object({
  priority: z.number().int().nullable(),
  title: z.string(),
  file: z.string(),
  lineStart: z.number().int(),
  lineEnd: z.number().int(),
  body: z.string(),
});

/**
 * A review: the rendered text (bounded), the findings parsed from it and,
 * once the run ended, its verdict (`failed` with `verdictReason` unless the
 * findings are known).
 *
 * @example
 * ```ts
 * reviewSchema.parse({ text: "", findings: [], truncated: false, verdict: "failed", verdictReason: "no_review" });
 * ```
 */
export const reviewSchema = z.object({
  text: z.string(),
  findings: z.array(reviewFindingSchema),
  truncated: z.boolean(),
  verdict: z.enum(["findings", "no_findings", "failed"]).optional(),
  verdictReason: z.enum(VERDICT_REASONS).optional(),
});
