/**
 * A helper's stdio as a {@linkcode FrameTransport}: one JSON frame per line.
 * @module
 */

import { RelayError } from "../../core/errors.ts";
import type { FrameTransport } from "../frame_transport.ts";
import type { CutFrame } from "../cut_frame.ts";
import type { HelperProcess } from "../process/helper_process.ts";
import { readLines } from "./line_reader.ts";

const encoder = new TextEncoder();

/**
 * Frames over a spawned helper's stdin/stdout, newline-delimited, under a
 * byte bound (a longer line is skipped unbuffered: a {@linkcode CutFrame}).
 */
export class LineTransport implements FrameTransport {
  readonly #helper: HelperProcess;
  readonly #maxFrameBytes: number;

  constructor(helper: HelperProcess, maxFrameBytes: number) {
    this.#helper = helper;
    this.#maxFrameBytes = maxFrameBytes;
  }

  async write(frame: string): Promise<void> {
    try {
      await this.#helper.write(encoder.encode(frame + "\n"));
    } catch (error) {
      throw new RelayError("protocol_error", "The app-server stopped reading its input", {
        written: true,
        cause: error,
      });
    }
  }

  frames(): AsyncIterable<string | CutFrame> {
    // The read is cancelled when the helper's pipes are cut (reaping never waits on a pipe
    // another process keeps open); the helper learns when the reading has stopped.
    const lines = readLines(this.#helper.stdout, this.#maxFrameBytes, this.#helper.pipesCut);
    const stopped = Promise.withResolvers<void>();
    this.#helper.readingStdout(stopped.promise);
    return (async function* () {
      try {
        yield* lines;
      } finally {
        stopped.resolve();
      }
    })();
  }

  async closed(): Promise<RelayError> {
    const status = await this.#helper.status;
    const how = status.signal ? `signal ${status.signal}` : `code ${status.code}`;
    return new RelayError("protocol_error", `The app-server exited (${how})`);
  }
}
