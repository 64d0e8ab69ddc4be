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

/** Token counts (`thread/tokenUsage/updated`, reasoning output as `reasoningTokens`). */
export const tokenCountsSchema = z.object({
  inputTokens: z.number(),
  cachedInputTokens: z.number(),
  outputTokens: z.number(),
  reasoningTokens: z.number(),
  totalTokens: z.number(),
});

/** Token counts. */
export type TokenCounts = z.output<typeof tokenCountsSchema>;

/**
 * A run's usage (`src/reply/token_usage.ts`): its turn's tokens, the context
 * window and how much of it the last request used, and the thread's total.
 * Absent from a result when Codex sent no `thread/tokenUsage/updated`.
 *
 * @example
 * ```ts
 * const c = { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5, reasoningTokens: 0, totalTokens: 15 };
 * usageSchema.parse({ ...c, contextWindow: 258400, contextUsed: 15, threadTotal: c });
 * ```
 */
export const usageSchema = tokenCountsSchema.extend({
  contextWindow: z.number().nullable(),
  contextUsed: z.number(),
  threadTotal: tokenCountsSchema,
});

/** A run's usage. */
export type RunUsage = z.output<typeof usageSchema>;
