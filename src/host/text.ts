/**
 * Small helpers for the text renderings of results: sentences that end with
 * a full stop, however the message they wrap ends.
 * @module
 */

/** `s` as a sentence: trimmed, ending with a full stop (or the `!`/`?` it has). */
export function sentence(s: string | undefined): string {
  const t = (s ?? "").trim();
  if (t === "") return "";
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/** Joins sentences with single spaces, dropping empty ones. */
export function sentences(...parts: (string | undefined)[]): string {
  return parts.map(sentence).filter((p) => p !== "").join(" ");
}
