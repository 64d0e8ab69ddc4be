/**
 * Byte helpers.
 * @module
 */

/** The `parts` joined into one array of `total` bytes (their summed length). */
export function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
