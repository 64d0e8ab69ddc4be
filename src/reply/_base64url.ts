/**
 * Unpadded base64url (RFC 4648 §5) over bytes, canonical forms only.
 * @module
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const VALUES = new Map([...ALPHABET].map((c, i) => [c, i]));

/** Encodes bytes as base64url without padding. */
export function encodeBase64Url(bytes: Uint8Array): string {
  let out = "";
  // Stryker disable next-line EqualityOperator: at i = bytes.length (a length that is a multiple of 3) no byte is left: that round writes Math.ceil(0) = 0 characters
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let k = 0; k < chars; k++) out += ALPHABET[(n >> (18 - 6 * k)) & 63];
  }
  return out;
}

/**
 * Decodes unpadded base64url; null for any other text, including padding,
 * the standard alphabet, whitespace and non-zero trailing bits.
 */
export function decodeBase64Url(text: string): Uint8Array | null {
  if (text.length % 4 === 1) return null;
  const bytes = new Uint8Array(Math.floor((text.length * 6) / 8));
  let acc = 0;
  let bits = 0;
  let j = 0;
  for (const c of text) {
    const v = VALUES.get(c);
    if (v === undefined) return null;
    acc = ((acc << 6) | v) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[j++] = (acc >> bits) & 0xff;
    }
  }
  // n characters gave floor(6n / 8) bytes, the array's length: only the trailing bits to check.
  if ((acc & ((1 << bits) - 1)) !== 0) return null;
  return bytes;
}
