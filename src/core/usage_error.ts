/**
 * The error type of the CLI edge (a message for the user and an exit code),
 * and the exit codes.
 * @module
 */

/** The exit codes of every command (BSD `sysexits.h` names). */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** Refused: an entry `install` did not write, or the user said no. */
  refused: 1,
  /** A command-line usage error (`EX_USAGE`). */
  usage: 64,
  /** An existing config file cannot be parsed (`EX_DATAERR`). */
  malformed: 65,
  /** An unexpected failure of codex-relay itself (`EX_SOFTWARE`). */
  software: 70,
  /** Reading or writing a file failed (`EX_IOERR`). */
  io: 74,
  /** Missing read/write permission for a config file (`EX_NOPERM`). */
  permission: 77,
  /** The environment does not tell where a config is (`EX_CONFIG`). */
  config: 78,
} as const;

/** Exit code of a command-line usage error (BSD `EX_USAGE`). */
export const EXIT_USAGE: number = EXIT.usage;

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
