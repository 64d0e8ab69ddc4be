/**
 * The error type of `install`: a message for the user (with the fix) and an
 * exit code.
 * @module
 */

import { UsageError } from "../core/usage_error.ts";

/** Exit codes of `install` besides 0 and 64 (usage). */
export const EXIT = {
  /** Refused: an entry `install` did not write, or the user said no. */
  refused: 1,
  /** The existing config file cannot be parsed (`EX_DATAERR`). */
  malformed: 65,
  /** Reading or writing the file failed (`EX_IOERR`). */
  io: 74,
  /** Missing read/write permission for the config file (`EX_NOPERM`). */
  permission: 77,
  /** The environment does not tell where the config is (`EX_CONFIG`). */
  config: 78,
} as const;

/** An install failure: nothing was written. */
export class InstallError extends UsageError {
  constructor(message: string, code: number) {
    super(message, code);
    this.name = "InstallError";
  }
}
