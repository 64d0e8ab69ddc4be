/**
 * A run's usage as results carry it: one model request of 10 input and 5 output tokens, the
 * thread's total the same (the shape of `usageSchema`).
 * @module
 */

import type { RunUsage } from "../src/reply/job_schemas.ts";

/** 10 in, 5 out, 15 in all; the thread's total the same, no context window. */
export const USAGE_10_5: RunUsage = Object.freeze({
  inputTokens: 10,
  cachedInputTokens: 0,
  outputTokens: 5,
  reasoningTokens: 0,
  totalTokens: 15,
  contextWindow: null,
  contextUsed: 15,
  threadTotal: Object.freeze({
    inputTokens: 10,
    cachedInputTokens: 0,
    outputTokens: 5,
    reasoningTokens: 0,
    totalTokens: 15,
  }),
});
