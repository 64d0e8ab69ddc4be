/**
 * The Codex releases codex-relay supports: the oldest and the newest that CI
 * runs the end-to-end suite and the protocol drift check against (`.ci/run`).
 * The one place this range is written in src/; the doctor warns outside it.
 * @module
 */

/** The supported range of `codex --version`, both ends included. */
export const SUPPORTED_CODEX: Readonly<{ oldest: string; newest: string }> = Object.freeze({
  oldest: "0.169.0",
  newest: "0.171.0",
});

/** Compares two `major.minor.patch` versions: negative, 0 or positive. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

/** Where a Codex version lies against {@linkcode SUPPORTED_CODEX}. */
export function supportOf(version: string): "older" | "supported" | "newer" {
  if (compareVersions(version, SUPPORTED_CODEX.oldest) < 0) return "older";
  if (compareVersions(version, SUPPORTED_CODEX.newest) > 0) return "newer";
  return "supported";
}
