/**
 * Skips a WebSocket message over the frame bound before the WebSocket driver
 * sees it: the daemon's frames pass through to the driver unchanged, except
 * a whole message (one frame, `fin` set) longer than the bound, whose bytes
 * are dropped as they come and whose ends are kept ({@linkcode CutFrame}).
 * A fragmented message passes as is (the driver's own bound ends the
 * connection then). Pure: bytes in, bytes and cuts out.
 * @module
 */

import { type CutFrame, CutKeeper } from "../cut_frame.ts";

/** What one chunk of the stream became, in order: bytes for the driver, or a cut message. */
export type Skipped = Uint8Array | CutFrame;

const END_OF_HEADERS = [0x0d, 0x0a, 0x0d, 0x0a];
/** A frame's first byte: the last (only) frame of a text message. */
const FIN_TEXT = 0x81;

/**
 * A filter of the bytes a WebSocket client reads (the HTTP upgrade answer,
 * then frames).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const skip = new WsSkipper(4);
 * const http = new TextEncoder().encode("HTTP/1.1 101 Switching\r\n\r\n");
 * const big = Uint8Array.of(0x81, 6, ...new TextEncoder().encode("{\"a\":}"));
 * const out = skip.push(Uint8Array.of(...http, ...big, 0x81, 2, 0x7b, 0x7d));
 * // The upgrade answer, the cut message, the small message's header and payload.
 * assert.equal(out.length, 4);
 * assert.equal((out[1] as { bytes: number }).bytes, 6);
 * ```
 */
export class WsSkipper {
  readonly #maxBytes: number;
  /** How many bytes of `\r\n\r\n` were last seen (4: the upgrade answer is over). */
  #headersSeen = 0;
  #header: number[] = [];
  /** Payload bytes left of the current frame. */
  #left = 0;
  /** The frame being skipped. */
  #skipping: CutKeeper | undefined;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The next chunk read: what to write to the driver and what was cut, in order. */
  push(chunk: Uint8Array): Skipped[] {
    const out: Skipped[] = [];
    let at = 0;
    while (at < chunk.length) {
      if (this.#headersSeen < 4) {
        const start = at;
        while (at < chunk.length && this.#headersSeen < 4) {
          const byte = chunk[at++];
          const next = END_OF_HEADERS[this.#headersSeen];
          this.#headersSeen = byte === next ? this.#headersSeen + 1 : byte === 0x0d ? 1 : 0;
        }
        out.push(chunk.subarray(start, at));
      } else if (this.#left > 0) {
        const n = Math.min(this.#left, chunk.length - at);
        const piece = chunk.subarray(at, at + n);
        if (this.#skipping) this.#skipping.add(piece);
        else out.push(piece);
        at += n;
        this.#left -= n;
        if (this.#left === 0) this.#endFrame(out);
      } else {
        // A header is held until it is whole: a skipped frame's never reaches the driver.
        this.#header.push(chunk[at++]);
        const length = frameLength(this.#header);
        if (length === undefined) continue;
        const header = Uint8Array.from(this.#header);
        this.#header = [];
        if (header[0] === FIN_TEXT && length > this.#maxBytes) this.#skipping = new CutKeeper();
        else out.push(header);
        this.#left = length;
        // Stryker disable next-line ConditionalExpression: a frame of no payload is within any bound, never skipped: ending it ends nothing
        if (length === 0) this.#endFrame(out);
      }
    }
    return out;
  }

  #endFrame(out: Skipped[]): void {
    if (this.#skipping) out.push(this.#skipping.frame());
    this.#skipping = undefined;
  }
}

/**
 * The payload length a frame header announces, once `header` holds all of it
 * (2, 4 or 10 bytes, plus 4 of a mask); undefined while it is incomplete.
 */
function frameLength(header: readonly number[]): number | undefined {
  // Stryker disable next-line ConditionalExpression: one byte: header[1] is undefined, so size is 2 and the next check returns undefined too
  if (header.length < 2) return undefined;
  const masked = (header[1] & 0x80) !== 0;
  const short = header[1] & 0x7f;
  const size = (short === 126 ? 4 : short === 127 ? 10 : 2) + (masked ? 4 : 0);
  if (header.length < size) return undefined;
  if (short < 126) return short;
  if (short === 126) return (header[2] << 8) | header[3];
  let length = 0;
  for (let i = 2; i < 10; i++) length = length * 256 + header[i];
  return length;
}
