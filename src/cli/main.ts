/**
 * The CLI edge: parse, dispatch, and the one place errors become exit codes.
 * @module
 */

import { serve } from "../host/serve.ts";
import { doctor } from "./doctor.ts";
import { parseCommand } from "./flags.ts";
import { printInstall } from "./install.ts";
import { HELP_TOPICS, helpText, servingNotice, USAGE_HINT } from "./help.ts";
import { INSTALL_USAGE } from "../install/args.ts";
import { EXIT, UsageError } from "../core/usage_error.ts";
import { VERSION } from "../core/version.ts";

export { VERSION };

const encoder = new TextEncoder();

function print(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += stream.writeSync(bytes.subarray(offset));
}

/**
 * Runs the command line `args` and resolves with the process exit code.
 *
 * @example Print the version
 * ```ts
 * import { main } from "@codex-relay/cli";
 * const code = await main(["--version"]); // prints "codex-relay <version>" to stdout; code is 0
 * ```
 */
export async function main(args: readonly string[]): Promise<number> {
  try {
    const command = parseCommand(args);
    switch (command.kind) {
      case "help":
        if (command.topic === "install" || command.topic === "uninstall") {
          print(Deno.stdout, INSTALL_USAGE);
          return EXIT.ok;
        }
        if (command.topic !== undefined && !HELP_TOPICS.includes(command.topic)) {
          throw new UsageError(
            `No help for '${command.topic}': give one of ${HELP_TOPICS.join(", ")}`,
          );
        }
        print(Deno.stdout, helpText(VERSION));
        return EXIT.ok;
      case "version":
        print(Deno.stdout, `codex-relay ${VERSION}\n`);
        return EXIT.ok;
      case "serve":
        // In a terminal nothing else would show: say once what it is doing.
        if (Deno.stderr.isTerminal()) print(Deno.stderr, servingNotice(VERSION));
        return await serve(command.flags, VERSION);
      case "doctor":
        return await doctor(command.flags, VERSION);
      case "install":
        return await printInstall(command.args);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      print(Deno.stderr, `codex-relay: ${error.message}\n`);
      if (error.code === EXIT.usage) print(Deno.stderr, `${USAGE_HINT}\n`);
      return error.code;
    }
    const name = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    print(Deno.stderr, `codex-relay: unexpected failure: ${name}\n`);
    return EXIT.software;
  }
}
