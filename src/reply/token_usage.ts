/**
 * What a run's turn cost in tokens and how full its thread's context is,
 * from Codex's `thread/tokenUsage/updated` notifications (one per model
 * request, transcripts 01 and 26). Pure: no I/O.
 * @module
 */

import type { TokenBreakdown, TokenUsage } from "../codex/notifications.ts";
import type { RunUsage, TokenCounts } from "./job_schemas.ts";

const counts = (b: TokenBreakdown): TokenCounts => ({
  inputTokens: b.inputTokens,
  cachedInputTokens: b.cachedInputTokens,
  outputTokens: b.outputTokens,
  reasoningTokens: b.reasoningOutputTokens,
  totalTokens: b.totalTokens,
});

/**
 * The run's usage after one more notification of its turn: the turn's counts
 * are the sum of each model request's `last`; `contextUsed` is the last
 * request's total (what the context held), `contextWindow` the model's, and
 * `threadTotal` Codex's running total of the thread.
 *
 * @example
 * ```ts
 * const b = { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5, reasoningOutputTokens: 0, totalTokens: 15 };
 * const one = addTokenUsage(undefined, { total: b, last: b, modelContextWindow: 258400 });
 * import assert from "assert";
 * assert.equal(addTokenUsage(one, { total: b, last: b, modelContextWindow: 258400 }).totalTokens, 30);
 * ```
 */
export function addTokenUsage(prev: RunUsage | undefined, usage: TokenUsage): RunUsage {
  const last = counts(usage.last);
  const sum = (k: keyof TokenCounts) => (prev?.[k] ?? 0) + last[k];
  return {
    inputTokens: sum("inputTokens"),
    cachedInputTokens: sum("cachedInputTokens"),
    outputTokens: sum("outputTokens"),
    reasoningTokens: sum("reasoningTokens"),
    totalTokens: sum("totalTokens"),
    contextWindow: usage.modelContextWindow ?? prev?.contextWindow ?? null,
    contextUsed: usage.last.totalTokens,
    threadTotal: counts(usage.total),
  };
}
