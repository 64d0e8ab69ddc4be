/**
 * Splits a byte stream into newline-terminated frames under a byte bound.
 * @module
 */

import { concatBytes } from "../../core/bytes.ts";
import { RelayError } from "../../core/errors.ts";

const NEWLINE = 0x0a;

/**
 * Yields each line of `stream` (without its `\n`, and without a trailing `\r`)
 * as UTF-8 text. A line longer than `maxBytes` fails with `output_limit` as soon
 * as the bound is passed, before the rest of it is buffered. A final line
 * without a newline is dropped: the writer died mid-frame. When `stop` aborts,
 * the read in progress is cancelled and the lines end there (a pipe another
 * process keeps open never holds the reader).
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  stop?: AbortSignal,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  if (stop?.aborted) cancel();
  stop?.addEventListener("abort", cancel, { once: true });
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      let start = 0;
      while (start < value.length) {
        const nl = value.indexOf(NEWLINE, start);
        const end = nl === -1 ? value.length : nl;
        const piece = value.subarray(start, end);
        if (size + piece.length > maxBytes) {
          throw new RelayError(
            "output_limit",
            `The app-server wrote a frame longer than ${maxBytes} bytes`,
            { written: true },
          );
        }
        if (nl === -1) {
          parts.push(piece.slice());
          size += piece.length;
          break;
        }
        let line: Uint8Array;
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
    stop?.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
}
