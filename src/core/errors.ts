/**
 * Reason codes and the one error type that carries them across components.
 * @module
 */

import { z } from "zod";

/** Every reason code: why an operation did not produce its normal result. */
export const REASON_CODES = [
  "thread_not_found",
  "legacy_history",
  "experimental_unavailable",
  "invalid_cursor",
  "held_elsewhere",
  "timeout",
  "output_limit",
  "spawn_failed",
  "codex_missing",
  "protocol_error",
  "busy",
  "cancelled",
  "not_allowed",
  "ambiguous_name",
  "turn_running",
  "rpc_error",
  "connection_lost",
  "daemon_unavailable",
  "cwd_not_found",
  "not_logged_in",
  "not_queued_here",
  "invalid_schema",
  "unknown_model",
  "git_missing",
  "not_a_repository",
  "worktree_exists",
  "worktree_not_found",
  "worktree_busy",
  "worktree_dirty",
  "worktree_locked",
  "account_required",
] as const;

/** Why an operation did not produce its normal result. */
export type ReasonCode = typeof REASON_CODES[number];

/** A reason code in results. */
export const reasonSchema: z.ZodEnum<{ [K in ReasonCode]: K }> = z.enum(REASON_CODES);

/** Options of a {@linkcode RelayError}. */
export interface RelayErrorOptions {
  /**
   * Whether the request frame that failed had been written to the helper.
   * `false` means the app-server certainly never saw it.
   */
  written?: boolean;
  /** The JSON-RPC error code, when the app-server answered with an error. */
  rpcCode?: number;
  /** The underlying error. */
  cause?: unknown;
}

/** An error with a reason code the caller can act on. */
export class RelayError extends Error {
  /** The reason code. */
  readonly reason: ReasonCode;
  /** Whether the failing request frame reached the helper's stdin. */
  readonly written: boolean;
  /** The JSON-RPC error code, if any. */
  readonly rpcCode?: number;

  constructor(reason: ReasonCode, message: string, options: RelayErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "RelayError";
    this.reason = reason;
    this.written = options.written ?? false;
    this.rpcCode = options.rpcCode;
  }
}

/** Returns the error as a {@linkcode RelayError}, wrapping anything else as `protocol_error`. */
export function asRelayError(error: unknown): RelayError {
  if (error instanceof RelayError) return error;
  return new RelayError("protocol_error", error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}

/** The error for an aborted signal: its reason when that is a RelayError, else `cancelled`. */
export function abortReason(signal: AbortSignal, written: boolean): RelayError {
  const why = signal.reason;
  return why instanceof RelayError
    ? new RelayError(why.reason, why.message, { written })
    : new RelayError("cancelled", "The operation was cancelled", { written });
}
