/**
 * What a run's turn cost in tokens and how full its thread's context is,
 * from Codex's `thread/tokenUsage/updated` notifications (one per model
 * request, transcripts 01 and 26; a compaction's three, docs/codex-protocol.md
 * "Other methods"). Pure: no I/O.
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

const NONE: TokenCounts = Object.freeze({
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
});

/**
 * The run's usage after one more notification of its turn. Each model request
 * counts once: a notification's `last` counts only when Codex's running
 * `total` changed since the run's previous notification, since Codex 0.169 and
 * 0.171 send three for a compaction (captures 46): a repeat of the thread's
 * previous request (`total` as before), the compaction's request, and an
 * estimate of the compacted context (`last` input and output 0, `total`
 * unchanged). `repeatsFirst` (a compaction's run): the run's first
 * notification is that repeat, counted as nothing. `contextUsed` is the last
 * notification's `last` total (what the context holds), `contextWindow` the
 * model's, and `threadTotal` Codex's running total of the thread.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const b = { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5, reasoningOutputTokens: 0, totalTokens: 15 };
 * const two = { ...b, inputTokens: 20, outputTokens: 10, totalTokens: 30 };
 * const one = addTokenUsage(undefined, { total: b, last: b, modelContextWindow: 258400 });
 * assert.equal(addTokenUsage(one, { total: two, last: b, modelContextWindow: 258400 }).totalTokens, 30);
 * // The same total again is not another request.
 * assert.equal(addTokenUsage(one, { total: b, last: b, modelContextWindow: 258400 }).totalTokens, 15);
 * ```
 */
export function addTokenUsage(
  prev: RunUsage | undefined,
  usage: TokenUsage,
  repeatsFirst = false,
): RunUsage {
  const counted = prev === undefined
    ? !repeatsFirst
    : usage.total.totalTokens !== prev.threadTotal.totalTokens;
  const last = counted ? counts(usage.last) : NONE;
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
