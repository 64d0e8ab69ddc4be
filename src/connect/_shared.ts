/**
 * Small pieces both backends share.
 * @module
 */

import { RelayError } from "../core/errors.ts";

/**
 * The error as one whose frame certainly never reached the app-server (it
 * failed before anything was sent): a {@linkcode RelayError} keeps its reason;
 * anything else is `spawn_failed`.
 */
export function notWritten(error: unknown): RelayError {
  if (error instanceof RelayError) {
    return error.written
      ? new RelayError(error.reason, error.message, { written: false, cause: error })
      : error;
  }
  return new RelayError("spawn_failed", error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}

/** An AbortSignal that aborts with the reason of the first of `signals` to abort. */
export function anySignal(signals: (AbortSignal | undefined)[]): AbortSignal {
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
}
