/**
 * Codex's account limits and usage, as the relay reads them: the rate-limit
 * windows of `account/rateLimits/read` and of the `account/rateLimits/updated`
 * notification (`{rateLimits: {primary, secondary: {usedPercent,
 * windowDurationMins, resetsAt}, planType, ...}}`, transcripts 24, 26), and a
 * thread's estimated cost from `account/usage/read {threadId}`
 * (`threadUsage: {estimatedUsageUsdMicros?, estimatedUsageCreditsMicros}`).
 * Parsers never fail: what is missing or malformed is null.
 * @module
 */

/** One rate-limit window. */
export interface LimitWindow {
  /** How much of the window is used, in percent. */
  usedPercent: number;
  /** The window's length in minutes (300: the 5-hour window; 10080: the weekly one). */
  windowMinutes: number | null;
  /** When the window resets, in Unix seconds. */
  resetsAt: number | null;
}

/** The account's rate limits. */
export interface RateLimits {
  primary: LimitWindow | null;
  secondary: LimitWindow | null;
  planType: string | null;
}

/** A thread's estimated cost (`account/usage/read {threadId}`). */
export interface ThreadCost {
  /** Estimated US dollars, when Codex gives it. */
  estimatedUsd: number | null;
  /** Estimated credits, when Codex gives them. */
  estimatedCredits: number | null;
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? v as Obj : undefined;
const num = (v: unknown): number | null => typeof v === "number" && Number.isFinite(v) ? v : null;

function window(raw: unknown): LimitWindow | null {
  const o = asObj(raw);
  const used = num(o?.usedPercent);
  if (!o || used === null) return null;
  return { usedPercent: used, windowMinutes: num(o.windowDurationMins), resetsAt: num(o.resetsAt) };
}

/**
 * The `rateLimits` of an `account/rateLimits/read` answer or an
 * `account/rateLimits/updated` notification's params.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const primary = { usedPercent: 42, windowDurationMins: 300, resetsAt: 1796200000 };
 * assert.deepEqual(parseRateLimits({ rateLimits: { primary, secondary: null } }), {
 *   primary: { usedPercent: 42, windowMinutes: 300, resetsAt: 1796200000 },
 *   secondary: null,
 *   planType: null,
 * });
 * ```
 */
export function parseRateLimits(raw: unknown): RateLimits {
  const r = asObj(asObj(raw)?.rateLimits);
  return {
    primary: window(r?.primary),
    secondary: window(r?.secondary),
    planType: typeof r?.planType === "string" ? r.planType : null,
  };
}

/**
 * The thread's estimated cost of an `account/usage/read {threadId}` answer
 * (micros turned into units), or null when it has no `threadUsage`.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(
 *   parseThreadCost({ threadUsage: { threadId: "t", estimatedUsageUsdMicros: 1_250_000 } }),
 *   { estimatedUsd: 1.25, estimatedCredits: null },
 * );
 * ```
 */
export function parseThreadCost(raw: unknown): ThreadCost | null {
  const u = asObj(asObj(raw)?.threadUsage);
  if (!u) return null;
  const units = (v: unknown) => {
    const n = num(v);
    return n === null ? null : n / 1_000_000;
  };
  return {
    estimatedUsd: units(u.estimatedUsageUsdMicros),
    estimatedCredits: units(u.estimatedUsageCreditsMicros),
  };
}

/**
 * How long until the spent window of `limits` resets (the latest reset of the
 * windows at 100 %), in ms from `nowMs`; undefined when none is spent or its
 * reset is unknown.
 *
 * @example
 * ```ts
 * const spent = { usedPercent: 100, windowMinutes: 300, resetsAt: 1_000 };
 * import assert from "assert";
 * assert.equal(limitRetryAfterMs({ primary: spent, secondary: null, planType: null }, 400_000), 600_000);
 * ```
 */
export function limitRetryAfterMs(
  limits: RateLimits | undefined,
  nowMs: number,
): number | undefined {
  const resets = [limits?.primary, limits?.secondary]
    .filter((w): w is LimitWindow => !!w && w.usedPercent >= 100 && w.resetsAt !== null)
    .map((w) => w.resetsAt! * 1000 - nowMs);
  if (resets.length === 0) return undefined;
  return Math.max(0, Math.ceil(Math.max(...resets)));
}
