/**
 * The result shapes of Codex's own jobs and of what a run costs (issue 42):
 * a review and its verdict, a run's token usage, `codex_usage`, `codex_fork`
 * and `codex_compact`. Part of the one source of result shapes: re-exported by
 * `schemas.ts`, which results import.
 * @module
 */

import { z } from "zod";
import { reasonSchema } from "../core/errors.ts";

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
 * A review: the rendered text (bounded), its findings (the reviewer's JSON's)
 * and, once the run ended, its verdict (`failed` with `verdictReason` unless
 * the reviewer's answer says findings or a correct patch).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const review = { text: "", findings: [], truncated: false, verdict: "failed", verdictReason: "no_review" };
 * assert.deepEqual(reviewSchema.parse(review), review);
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
 * import assert from "assert";
 * const usage = { ...c, contextWindow: 258400, contextUsed: 15, threadTotal: c };
 * assert.deepEqual(usageSchema.parse(usage), usage);
 * ```
 */
export const usageSchema = tokenCountsSchema.extend({
  contextWindow: z.number().nullable(),
  contextUsed: z.number(),
  threadTotal: tokenCountsSchema,
});

/** A run's usage. */
export type RunUsage = z.output<typeof usageSchema>;

/** One rate-limit window: used percent, its length, when it resets (ISO 8601). */
export const limitWindowSchema = z.object({
  usedPercent: z.number(),
  windowMinutes: z.number().nullable(),
  resetsAt: z.string().nullable(),
});

/** `codex_usage`'s estimated cost of a thread (`account/usage/read {threadId}`). */
export const threadCostSchema = z.object({
  threadId: z.string(),
  status: z.enum(["available", "unavailable"]),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  estimatedUsd: z.number().nullable().optional(),
  estimatedCredits: z.number().nullable().optional(),
});

/**
 * The `codex_usage` result: the rate-limit windows (`primary`: the 5-hour,
 * `secondary`: the weekly one) or `unavailable` with why (an API-key login:
 * `account_required`), and a thread's estimated cost when asked.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const out = { status: "unavailable", reason: "account_required", message: "…" };
 * assert.deepEqual(codexUsageOutput.parse(out), out);
 * ```
 */
export const codexUsageOutput = z.object({
  status: z.enum(["available", "unavailable"]),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  primary: limitWindowSchema.nullable().optional(),
  secondary: limitWindowSchema.nullable().optional(),
  planType: z.string().nullable().optional(),
  thread: threadCostSchema.optional(),
});

/** The `codex_usage` result. */
export type CodexUsageResult = z.output<typeof codexUsageOutput>;

/**
 * The `codex_fork` result: the new thread (`newThreadId`, its cwd and name),
 * or `not_forked` with why.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const out = { status: "forked", threadId: "a", newThreadId: "b", cwd: "/w" };
 * assert.deepEqual(forkOutput.parse(out), out);
 * ```
 */
export const forkOutput = z.object({
  status: z.enum(["forked", "not_forked"]),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  threadId: z.string(),
  newThreadId: z.string().optional(),
  cwd: z.string().nullable().optional(),
  name: z.string().optional(),
  notes: z.array(z.string()).optional(),
});

/** The `codex_fork` result. */
export type ForkResult = z.output<typeof forkOutput>;

/** A structured answer checked against its schema (`src/reply/structured.ts`). */
export const structuredSchema = z.union([
  z.object({ valid: z.literal(true), value: z.unknown() }),
  z.object({ valid: z.literal(false), error: z.string() }),
]);
