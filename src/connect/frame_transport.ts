/**
 * What {@linkcode RpcConnection} runs over: a channel of whole JSON-RPC
 * frames (one JSON text each). A helper's stdio (one frame per line) and the
 * daemon's WebSocket (one frame per text message) are both one.
 * @module
 */

import type { RelayError } from "../core/errors.ts";
import type { CutFrame } from "./cut_frame.ts";

/** A channel of JSON text frames. */
export interface FrameTransport {
  /**
   * Writes one frame. Rejects with a {@linkcode RelayError} (`written: true`)
   * when the other side stopped reading.
   */
  write(frame: string): Promise<void>;
  /**
   * Every frame received, in order, read by exactly one consumer; a frame
   * over the bound is skipped unbuffered and comes as a {@linkcode CutFrame}.
   * Ends when the other side is gone; throws a {@linkcode RelayError} on a
   * frame that breaks the framing (or passes the bound where it cannot be
   * skipped).
   */
  frames(): AsyncIterable<string | CutFrame>;
  /** Once {@linkcode frames} has ended: why the channel closed (the error pending requests get). */
  closed(): Promise<RelayError>;
  /**
   * A liveness probe that writes no JSON-RPC (the daemon's WebSocket ping):
   * true at its answer, false once the channel has ended. Absent where a
   * dead peer shows at once (a helper's stdio).
   */
  ping?(): Promise<boolean>;
  /**
   * The channel's own error once it ended with one (a frame past the bound),
   * set before its pending pings answer false: the reason calls get.
   */
  readonly failure?: RelayError;
}
