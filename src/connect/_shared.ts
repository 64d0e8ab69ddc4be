/**
 * Small pieces both backends share.
 * @module
 */

import { abortReason, RelayError } from "../core/errors.ts";

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

/**
 * Waits for `shared` (a start several callers share) until `signal` aborts:
 * the abort ends this caller's wait (its reason, `written: false`), never the
 * shared start.
 *
 * @example
 * ```ts ignore
 * const host = await untilAborted(this.#opening, signal);
 * ```
 */
export async function untilAborted<T>(shared: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw abortReason(signal, false);
  const aborted = Promise.withResolvers<never>();
  const onAbort = () => aborted.reject(abortReason(signal, false));
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await Promise.race([shared, aborted.promise]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
