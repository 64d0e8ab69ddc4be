/**
 * The error type of `install`: a message for the user (with the fix) and an
 * exit code.
 * @module
 */

import { EXIT, UsageError } from "../core/usage_error.ts";

export { EXIT };

/** An install failure: nothing was written. */
export class InstallError extends UsageError {
  constructor(message: string, code: number) {
    super(message, code);
    this.name = "InstallError";
  }
}
