/**
 * `codex-relay install` / `uninstall` of the relay's own CLI: print-only.
 * The relay runs without write permission, so it prints the client's entry
 * and the one command that applies it (the install entry, `install.ts`, with
 * read/write permission on exactly that file).
 * @module
 */

import { runningSource } from "../install/running.ts";
import { realInstallIo, runInstall } from "../install/run.ts";

/** Prints the entry and the apply command for `args`; resolves with the exit code. */
export async function printInstall(args: readonly string[]): Promise<number> {
  const source = runningSource();
  return await runInstall(args, source, realInstallIo(), {
    printOnly: true,
  });
}
