/**
 * Splits a byte stream into newline-terminated frames under a byte bound; a
 * longer line is skipped unbuffered, only its ends kept.
 * @module
 */

import { concatBytes } from "../../core/bytes.ts";
import { type CutFrame, CutKeeper } from "../cut_frame.ts";

const NEWLINE = 0x0a;

/**
 * Yields each line of `stream` (without its `\n`, and without a trailing `\r`)
 * as UTF-8 text. A line longer than `maxBytes` is skipped as it comes, never
 * buffered: once it ends, a {@linkcode CutFrame} (its size and its ends, as
 * {@linkcode CutKeeper} keeps them) is yielded in its place, and the lines after it
 * are read as usual. A final line without a newline is dropped: the writer
 * died mid-frame. When `stop` aborts, the read in progress is cancelled and
 * the lines end there (a pipe another process keeps open never holds the
 * reader).
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  stop?: AbortSignal,
): AsyncGenerator<string | CutFrame> {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  let skipping: CutKeeper | undefined;
  const reader = stream.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  if (stop?.aborted) cancel();
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: a signal aborts once, and the finally removes the listener
  stop?.addEventListener("abort", cancel, { once: true });
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      let start = 0;
      // Stryker disable next-line EqualityOperator: `<=`: at a chunk's end the piece is empty, and an empty part changes no line
      while (start < value.length) {
        const nl = value.indexOf(NEWLINE, start);
        const end = nl === -1 ? value.length : nl;
        const piece = value.subarray(start, end);
        if (!skipping && size + piece.length > maxBytes) {
          skipping = new CutKeeper();
          for (const part of parts) skipping.add(part);
          parts = [];
          size = 0;
        }
        if (skipping) {
          skipping.add(piece);
          if (nl === -1) break;
          start = nl + 1;
          yield skipping.frame();
          skipping = undefined;
          continue;
        }
        if (nl === -1) {
          parts.push(piece.slice());
          size += piece.length;
          break;
        }
        let line: Uint8Array;
        // Stryker disable next-line ConditionalExpression: joining no parts before the piece is the piece: only a copy saved
        if (parts.length === 0) line = piece;
        else {
          parts.push(piece);
          line = concatBytes(parts, size + piece.length);
        }
        parts = [];
        size = 0;
        start = nl + 1;
        let text = decoder.decode(line);
        if (text.endsWith("\r")) text = text.slice(0, -1);
        yield text;
      }
    }
  } finally {
    // Stryker disable next-line StringLiteral: a listener left behind cancels a reader released below: that rejects (caught), the stream untouched
    stop?.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
}
