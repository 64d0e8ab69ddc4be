/** Protects: codex_usage's reading of Codex's limits and cost, and a spent limit's retry time (issue 42). */
import assert from "assert";
import {
  limitRetryAfterMs,
  parseRateLimits,
  parseThreadCost,
} from "../../src/codex/rate_limits.ts";
import { classifyFailure, withLimitReset } from "../../src/turn/classify_failure.ts";
import { mapRpcError } from "../../src/connect/rpc_errors.ts";

const spent = { usedPercent: 100, windowDurationMins: 300, resetsAt: 2_000 };

Deno.test("parseRateLimits: windows as Codex sends them; the captured all-null notification is no window", () => {
  assert.deepEqual(
    parseRateLimits({ rateLimits: { primary: spent, secondary: null, planType: "pro" } }),
    {
      primary: { usedPercent: 100, windowMinutes: 300, resetsAt: 2_000 },
      secondary: null,
      planType: "pro",
    },
  );
  // Transcript 26 (an API key): account/rateLimits/updated with every window null.
  const captured = { rateLimits: { limitId: "codex", primary: null, secondary: null } };
  assert.deepEqual(parseRateLimits(captured), { primary: null, secondary: null, planType: null });
  assert.deepEqual(parseRateLimits(undefined), { primary: null, secondary: null, planType: null });
});

Deno.test("parseThreadCost: micros to units; absent fields null; no threadUsage is null", () => {
  assert.deepEqual(parseThreadCost({ threadUsage: { estimatedUsageCreditsMicros: 500_000 } }), {
    estimatedUsd: null,
    estimatedCredits: 0.5,
  });
  assert.equal(parseThreadCost({ summary: {} }), null);
});

Deno.test("limitRetryAfterMs: the latest reset of the spent windows; none spent or unknown is undefined", () => {
  const limits = parseRateLimits({
    rateLimits: { primary: spent, secondary: { ...spent, resetsAt: 5_000 } },
  });
  assert.equal(limitRetryAfterMs(limits, 1_000_000), 4_000_000);
  assert.equal(limitRetryAfterMs(limits, 9_000_000), 0, "a reset passed: retry now");
  const unspent = parseRateLimits({ rateLimits: { primary: { ...spent, usedPercent: 99 } } });
  assert.equal(limitRetryAfterMs(unspent, 0), undefined);
  assert.equal(limitRetryAfterMs(undefined, 0), undefined);
});

Deno.test("withLimitReset: only usageLimitExceeded takes the reset; others keep theirs", () => {
  const usage = withLimitReset(classifyFailure("usageLimitExceeded"), "usageLimitExceeded", 7_000);
  assert.deepEqual(usage, { failureClass: "capacity", retryable: true, retryAfterMs: 7_000 });
  const overloaded = withLimitReset(classifyFailure("serverOverloaded"), "serverOverloaded", 7_000);
  assert.equal(overloaded.retryAfterMs, 60_000);
  const unknown = withLimitReset(
    classifyFailure("usageLimitExceeded"),
    "usageLimitExceeded",
    undefined,
  );
  assert.equal(unknown.retryAfterMs, 60_000);
  const objectKind = { usageLimitExceeded: {} };
  assert.equal(withLimitReset(classifyFailure(objectKind), objectKind, 1).retryAfterMs, 1);
});

Deno.test("mapRpcError: Codex's 'authentication required' answers are account_required", () => {
  for (const what of ["rate limits", "token usage"]) {
    const e = mapRpcError("account/rateLimits/read", {
      code: -32600,
      message: `codex account authentication required to read ${what}`,
    });
    assert.equal(e.reason, "account_required");
  }
});
