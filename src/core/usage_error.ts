/**
 * The error type of the CLI edge: a message for the user and an exit code.
 * @module
 */

/** Exit code of a command-line usage error (BSD `EX_USAGE`). */
export const EXIT_USAGE = 64;

/** A user error: printed without a stack trace, then the process exits with `code`. */
export class UsageError extends Error {
  /** The process exit code. */
  readonly code: number;

  constructor(message: string, code: number = EXIT_USAGE) {
    super(message);
    this.name = "UsageError";
    this.code = code;
  }
}
