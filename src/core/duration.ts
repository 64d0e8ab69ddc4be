/**
 * How the relay prints a time bound in its messages ("within 300 ms",
 * "within 20 s"): a bound under a second is never rounded to "0 s".
 * @module
 */

/**
 * A bound of `ms` milliseconds as people read it: whole milliseconds under a
 * second (`300 ms`), whole seconds when exact (`20 s`), else seconds with one
 * decimal (`1.5 s`).
 */
export function formatBound(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return `${ms} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const tenths = Math.round(ms / 100);
  return tenths % 10 === 0 ? `${tenths / 10} s` : `${(tenths / 10).toFixed(1)} s`;
}
