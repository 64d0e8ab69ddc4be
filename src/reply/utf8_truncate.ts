/**
 * UTF-8 byte counting and truncation on character boundaries.
 * @module
 */

/** The longest prefix of a text that fits a UTF-8 byte limit. */
export interface Utf8Prefix {
  /** The prefix: whole characters only, never half of a surrogate pair. */
  text: string;
  /** Its UTF-8 length in bytes (a lone surrogate counts 3, as U+FFFD). */
  bytes: number;
  /** Whether characters were dropped. */
  truncated: boolean;
}

/**
 * Returns the longest prefix of `text` whose UTF-8 encoding fits `maxBytes`.
 *
 * Cuts only between characters: a surrogate pair (4 bytes in UTF-8) is kept or
 * dropped whole, so a character straddling the limit is dropped. A lone
 * surrogate counts as the 3 bytes of U+FFFD, which is what `TextEncoder`
 * writes for it.
 *
 * @throws {RangeError} when `maxBytes` is not a non-negative safe integer.
 */
export function utf8Truncate(text: string, maxBytes: number): Utf8Prefix {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError("maxBytes must be a non-negative integer");
  }
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const units = isPairAt(text, i) ? 2 : 1;
    const size = units === 2 ? 4 : unitBytes(text.charCodeAt(i));
    if (bytes + size > maxBytes) return { text: text.slice(0, i), bytes, truncated: true };
    bytes += size;
    i += units;
  }
  return { text, bytes, truncated: false };
}

function isPairAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff) return false;
  const d = text.charCodeAt(i + 1); // NaN past the end: no pair
  return d >= 0xdc00 && d <= 0xdfff;
}

function unitBytes(c: number): number {
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  return 3;
}
