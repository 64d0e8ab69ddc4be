/**
 * The CLI edge: parse, dispatch, and the one place errors become exit codes.
 * @module
 */

import { serve } from "../host/serve.ts";
import { doctor } from "./doctor.ts";
import { parseCommand } from "./flags.ts";
import { printInstall } from "./install.ts";
import { helpText } from "./help.ts";
import { EXIT, UsageError } from "../core/usage_error.ts";
import { VERSION } from "../core/version.ts";

export { VERSION };

const encoder = new TextEncoder();

function print(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += stream.writeSync(bytes.subarray(offset));
}

/** Runs the command line `args` and resolves with the process exit code. */
export async function main(args: readonly string[]): Promise<number> {
  try {
    const command = parseCommand(args);
    switch (command.kind) {
      case "help":
        print(Deno.stdout, helpText(VERSION));
        return EXIT.ok;
      case "version":
        print(Deno.stdout, `codex-relay ${VERSION}\n`);
        return EXIT.ok;
      case "serve":
        return await serve(command.flags, VERSION);
      case "doctor":
        return await doctor(command.flags, VERSION);
      case "install":
        return await printInstall(command.args);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      print(Deno.stderr, `codex-relay: ${error.message}\n`);
      if (error.code === EXIT.usage) print(Deno.stderr, `\n${helpText(VERSION)}`);
      return error.code;
    }
    const name = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    print(Deno.stderr, `codex-relay: unexpected failure: ${name}\n`);
    return EXIT.software;
  }
}
