/**
 * The CLI edge: parse, dispatch, and the one place errors become exit codes.
 * @module
 */

import { serveWith } from "../host/serve.ts";
import type { ServeFlags } from "../host/serve_flags.ts";
import { type Command, parseCommand } from "./flags.ts";
import { EXIT, UsageError } from "../core/usage_error.ts";
import { VERSION } from "../core/version.ts";

export { VERSION };

const encoder = new TextEncoder();

function print(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += stream.writeSync(bytes.subarray(offset));
}

/** The command line that runs this relay's CLI (a checkout has no `codex-relay` command). */
async function relayCommand(): Promise<string> {
  const [{ commandLine }, { runningCli }] = await Promise.all([
    import("../install/launch.ts"),
    import("../install/running.ts"),
  ]);
  return commandLine(runningCli());
}

/**
 * The help text of `topic` (none: the general one). Help, install and hook-wait are loaded
 * only when asked for: `serve` never pays for them (docs/reliability.md, "Start").
 */
async function helpFor(topic: string | undefined): Promise<string> {
  const { doctorHelp, HELP_TOPICS, helpText, serveHelp } = await import("./help.ts");
  const relay = await relayCommand();
  switch (topic) {
    case undefined:
      return helpText(VERSION, relay);
    case "serve":
      return serveHelp(VERSION, relay);
    case "doctor":
      return doctorHelp(VERSION, relay);
    case "install":
    case "uninstall":
      return (await import("../install/args.ts")).usageOf(topic, relay);
    case "hook-wait":
      return (await import("./hook_wait.ts")).HOOK_WAIT_USAGE;
  }
  throw new UsageError(`No help for '${topic}': give one of ${HELP_TOPICS.join(", ")}`);
}

/**
 * Runs the command line `args` and resolves with the process exit code.
 *
 * @example Print the version
 * ```ts
 * import assert from "assert";
 * import { main } from "@codex-relay/cli";
 * assert.equal(await main(["--version"]), 0); // It printed "codex-relay <version>" on stdout.
 * ```
 */
export async function main(args: readonly string[]): Promise<number> {
  try {
    const command = parseCommand(args);
    switch (command.kind) {
      case "help":
        print(Deno.stdout, await helpFor(command.topic));
        return EXIT.ok;
      case "version":
        print(Deno.stdout, `codex-relay ${VERSION}\n`);
        return EXIT.ok;
      case "serve":
        // In a terminal nothing else would show: say once what it is doing.
        if (Deno.stderr.isTerminal()) {
          const { servingNotice } = await import("./help.ts");
          print(Deno.stderr, servingNotice(VERSION, await relayCommand()));
        }
        return await serveProcess(command.flags);
      case "doctor":
        return await doctorProcess(command);
      case "install":
        // Loaded when asked for, as doctor is: serve never pays for them (docs/reliability.md).
        return await (await import("./install.ts")).printInstall(command.args);
      case "hook-wait": {
        const { HOOK_WAIT_USAGE, hookWait } = await import("./hook_wait.ts");
        if (command.args.includes("--help")) {
          print(Deno.stdout, HOOK_WAIT_USAGE);
          return EXIT.ok;
        }
        const out = await hookWait(command.args, Deno.stdin.readable);
        if (out.text) print(Deno.stderr, `${out.text}\n`);
        return out.code;
      }
    }
  } catch (error) {
    if (error instanceof UsageError) {
      print(Deno.stderr, `codex-relay: ${error.message}\n`);
      if (error.code === EXIT.usage) {
        print(Deno.stderr, `${(await import("./help.ts")).USAGE_HINT}\n`);
      }
      return error.code;
    }
    const name = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    print(Deno.stderr, `codex-relay: unexpected failure: ${name}\n`);
    return EXIT.software;
  }
}

/** `doctor`, loaded when asked for: its checks, or its command line with `--print-command`. */
async function doctorProcess(command: Extract<Command, { kind: "doctor" }>): Promise<number> {
  const { doctor, realDoctorIo } = await import("./doctor.ts");
  if (command.printCommand && command.registration) {
    const { doctorCommand } = await import("./doctor_client.ts");
    const io = realDoctorIo();
    print(Deno.stdout, `${doctorCommand(command.registration, io, io.cwd())}\n`);
    return EXIT.ok;
  }
  return await doctor(command.flags, VERSION, undefined, command.registration);
}

/**
 * `serve` as a program: the library's server on the process's
 * stdin and stdout, stopped by SIGINT or SIGTERM (their listeners stay until
 * it resolves: a second signal must not end the relay uncleanly).
 */
async function serveProcess(flags: ServeFlags): Promise<number> {
  const stop = new AbortController();
  const added: [Deno.Signal, () => void][] = [];
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    const listener = () => stop.abort(signal);
    try {
      Deno.addSignalListener(signal, listener);
      added.push([signal, listener]);
    } catch {
      // A platform without this signal (Windows has no SIGTERM listener).
    }
  }
  try {
    return await serveWith(flags, {
      readable: Deno.stdin.readable,
      writable: Deno.stdout.writable,
      signal: stop.signal,
    });
  } finally {
    for (const [signal, listener] of added) Deno.removeSignalListener(signal, listener);
  }
}
