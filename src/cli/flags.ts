/**
 * Strict flag parsing: an unknown, duplicated or malformed flag is a usage
 * error (exit 64) before anything starts.
 * @module
 */

import { UsageError } from "../core/usage_error.ts";
import { parseStrict } from "../core/parse_strict.ts";
import {
  type ServeFlags,
  serveFlags,
  type ServeSettings,
  valuesOfFlags,
} from "../host/serve_flags.ts";
import {
  parseOptions,
  SERVE_OPTIONS,
  serveArgs,
  type ServeValues,
  valuesOf,
} from "../core/serve_options.ts";
import { type ClientId, CLIENTS } from "../install/clients.ts";
import type { Registration } from "./doctor_client.ts";

/** What the command line asks for. */
export type Command =
  | { kind: "help"; topic?: string }
  | { kind: "version" }
  | { kind: "serve"; flags: ServeFlags }
  | { kind: "doctor"; flags: ServeFlags; registration?: Registration; printCommand?: boolean }
  /** `install` / `uninstall`: their own arguments, parsed by the installer. */
  | { kind: "install"; args: string[] }
  /** `hook-wait`: its own arguments (`hook_wait.ts`). */
  | { kind: "hook-wait"; args: string[] };

const COMMANDS = ["serve", "doctor"] as const;

/** Every command, as a usage error lists them. */
const ALL_COMMANDS = "serve, doctor, install, uninstall, help";

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
  ...parseOptions(SERVE_OPTIONS),
  client: { type: "string" },
  scope: { type: "string" },
  "print-command": { type: "boolean" },
} as const;

const REPEATABLE = new Set(
  SERVE_OPTIONS.filter((o) => o.type === "strings").map((o) => o.flag.slice(2)),
);

/** The serve options `doctor` takes (the rest are a usage error there). */
const DOCTOR_ROWS = SERVE_OPTIONS.filter((o) => o.doctor !== undefined);

/** Parses the command line. Throws {@linkcode UsageError} on any misuse. */
export function parseCommand(args: readonly string[]): Command {
  if (args[0] === "install" || args[0] === "uninstall") return { kind: "install", args: [...args] };
  if (args[0] === "hook-wait") return { kind: "hook-wait", args: args.slice(1) };
  if (args[0] === "help") {
    if (args.length > 2) throw new UsageError(`Unexpected argument '${args[2]}'`);
    return { kind: "help", topic: args[1] };
  }
  const { values, positionals, seen } = parseStrict(args, OPTIONS, REPEATABLE);
  if (values.help) return { kind: "help", topic: positionals[0] };
  if (values.version) {
    if (positionals.length > 0 || seen.size > 1) {
      throw new UsageError("--version takes no other arguments");
    }
    return { kind: "version" };
  }
  if (positionals.length === 0) {
    throw new UsageError(`Missing command: give one of ${ALL_COMMANDS}`);
  }
  const [command, ...rest] = positionals;
  if (!(COMMANDS as readonly string[]).includes(command)) {
    throw new UsageError(`Unknown command '${command}': give one of ${ALL_COMMANDS}`);
  }
  if (rest.length > 0) throw new UsageError(`Unexpected argument '${rest[0]}'`);
  if (command === "doctor") {
    for (const o of SERVE_OPTIONS) {
      if (!o.doctor && seen.has(o.flag.slice(2))) {
        throw new UsageError(`${o.flag} is not an option of doctor`);
      }
    }
  } else {
    for (const name of ["client", "scope", "print-command"]) {
      if (seen.has(name)) throw new UsageError(`--${name} is not an option of ${command}`);
    }
  }
  const flags = serveFlags(settingsOf(valuesOf(values)), "flags");
  if (command === "doctor") return doctorCommandOf(flags, values);
  return { kind: "serve", flags };
}

/** `doctor`'s command: whose registration, and whether only its command line is printed. */
function doctorCommandOf(
  flags: ServeFlags,
  values: { client?: string; scope?: string; "print-command"?: boolean },
): Command {
  const { registration } = registrationOf(values);
  if (!values["print-command"]) return { kind: "doctor", flags, registration };
  if (!registration) throw new UsageError("--print-command needs --client");
  const passOn = serveArgs(valuesOfFlags(flags), DOCTOR_ROWS);
  return { kind: "doctor", flags, registration: { ...registration, passOn }, printCommand: true };
}

/** `doctor --client CLIENT [--scope user|project]`: whose registration to check. */
function registrationOf(
  values: { client?: string; scope?: string },
): { registration?: Registration } {
  if (values.client === undefined) {
    if (values.scope !== undefined) throw new UsageError("--scope needs --client");
    return {};
  }
  if (!(CLIENTS as readonly string[]).includes(values.client)) {
    throw new UsageError(`Unknown client '${values.client}': give one of ${CLIENTS.join(", ")}`);
  }
  const scope = values.scope ?? "user";
  if (scope !== "user" && scope !== "project") {
    throw new UsageError(`--scope must be user or project (got '${scope}')`);
  }
  return { registration: { client: values.client as ClientId, scope } };
}

/** The settings `serveFlags` checks, from the flags' values. */
function settingsOf(values: ServeValues): ServeSettings {
  const server = values.appServer;
  // `unix://PATH` is the flag's spelling of a socket; serveFlags checks the rest.
  const appServer = typeof server === "string" && server.startsWith("unix://")
    ? { socket: server.slice("unix://".length) }
    : server;
  return { ...values, appServer } as ServeSettings;
}
