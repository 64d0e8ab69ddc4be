/**
 * `doctor --client CLIENT`: the relay's entry in that client's config file,
 * read with read permission on exactly that file (the relay holds none; the
 * finding gives the exact command that grants it), and the absolute paths
 * its command line names, which the doctor then asks Codex about
 * (src/cli/doctor_entry.ts): an entry registered from the wrong folder names
 * a file that does not exist, and the client says only "Failed to connect".
 * With the providers' key variables (Codex's `config/read`), it checks that
 * the entry gives the relay each of them as that client starts it
 * ({@linkcode registrationKeyFindings}).
 * @module
 */

import {
  type ClientId,
  ENTRY_NAME,
  keyReference,
  resolveTarget,
  type Scope,
  type Target,
} from "../install/clients.ts";
import { readJsonConfig } from "../install/json_edit.ts";
import { commandLine } from "../install/launch.ts";
import { entryKeyState } from "../install/provider_keys.ts";
import { readTomlConfig } from "../install/toml_edit.ts";
import { commandPaths, type EntryPaths } from "./doctor_entry.ts";
import { hookFindings, hookPaths } from "../install/push_hooks.ts";
import type { Finding, ProviderKey } from "./doctor_env.ts";

/** Which client's registration to check. */
export interface Registration {
  client: ClientId;
  scope: Scope;
  /** The doctor's other arguments (level, `--app-server`, `--codex`), which a printed doctor command keeps. */
  passOn?: readonly string[];
}

/** What reading a registration touches. */
export interface RegistrationIo {
  /** An environment variable the relay may read, or `undefined`. */
  env(name: string): string | undefined;
  /** `Deno.build.os`. */
  os: typeof Deno.build.os;
  /** Whether a permission is granted (never prompts). */
  granted(descriptor: Deno.PermissionDescriptor): boolean;
  /** The words of the command that runs this relay's CLI. */
  relayWords: string[];
  /** The file's text, or `null` when it does not exist. */
  read(path: string): Promise<string | null>;
}

/** The command that runs the doctor again with read permission on `path`. */
function withRead(words: readonly string[], path: string, reg: Registration): string[] {
  const at = words[1] === "run" ? 2 : words.length;
  return [
    ...words.slice(0, at),
    `--allow-read=${path}`,
    ...words.slice(at),
    "doctor",
    ...(reg.passOn ?? []),
    "--client",
    reg.client,
    ...(reg.scope === "project" ? ["--scope", "project"] : []),
  ];
}

/**
 * `doctor --client CLIENT --print-command`: the one doctor command that may
 * read exactly that client's config file (the relay's permission set reads
 * none), for `sh -c "$(... doctor --client CLIENT --print-command)"`, so the
 * check needs no second run.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const relayWords = ["deno", "run", "-P", "--no-prompt", "/r/mod.ts"];
 * const io = { env: () => "/h", os: "linux", relayWords } as const;
 * assert.equal(
 *   doctorCommand({ client: "cursor", scope: "user" }, io, "/p"),
 *   "deno run --allow-read=/h/.cursor/mcp.json -P --no-prompt /r/mod.ts doctor --client cursor",
 * );
 * ```
 */
export function doctorCommand(
  reg: Registration,
  io: Pick<RegistrationIo, "env" | "os" | "relayWords">,
  cwd: string,
): string {
  return commandLine(withRead(io.relayWords, readPaths(reg, io, cwd), reg), io.os);
}

/** What `doctor --client` reads: the client's config, and Claude Code's settings (the push hook). */
function readPaths(reg: Registration, io: Pick<RegistrationIo, "env" | "os">, cwd: string) {
  const target = resolveTarget(reg.client, reg.scope, { get: io.env, os: io.os, cwd });
  if (reg.client !== "claude-code") return target.path;
  return `${target.path},${hookPaths(reg.scope, io.env, cwd).settings}`;
}

/**
 * Reads the relay's entry for `reg`: findings about the file and the entry,
 * and the entry's paths for the doctor to ask Codex about.
 */
export async function readRegistration(
  reg: Registration,
  io: RegistrationIo,
  cwd: string,
): Promise<{ findings: Finding[]; entries: EntryPaths[]; entry?: RegisteredEntry }> {
  const target = resolveTarget(reg.client, reg.scope, { get: io.env, os: io.os, cwd });
  const where = `${target.label}'s entry for codex-relay in ${target.path}`;
  if (!io.granted({ name: "read", path: target.path })) {
    return {
      // The doctor's own grant, not the user's setup: a warning, not a problem.
      findings: [{
        level: "warn",
        text:
          `cannot read ${target.path} to check ${target.label}'s entry: this doctor holds no read permission on it`,
        fix: `run exactly: ${
          commandLine(withRead(io.relayWords, readPaths(reg, io, cwd), reg), io.os)
        }`,
      }],
      entries: [],
    };
  }
  let entry: unknown;
  try {
    const text = await io.read(target.path) ?? "";
    entry = target.format === "json"
      ? readJsonConfig(text, target.container, ENTRY_NAME, target.path).entry
      : readTomlConfig(text, ENTRY_NAME, target.path).entry;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { findings: [{ level: "problem", text: why }], entries: [] };
  }
  if (entry === undefined) {
    return {
      findings: [{
        level: "problem",
        text:
          `${target.path} has no "${ENTRY_NAME}" entry: ${target.label} does not start the relay`,
        fix: `${
          io.relayWords.join(" ")
        } install --client ${reg.client} prints the command that adds it`,
      }],
      entries: [],
    };
  }
  const paths = commandPaths(entry);
  return {
    findings: [
      { level: "ok", text: `${where} starts ${paths.join(", ") || "a command on PATH"}` },
      ...(reg.client === "claude-code" ? await pushHook(reg, io, cwd, paths) : []),
    ],
    entries: [{ where, client: reg.client, paths }],
    entry: { target, entry },
  };
}

/** The push hook's findings, when Claude Code's settings file may be read. */
async function pushHook(reg: Registration, io: RegistrationIo, cwd: string, paths: string[]) {
  const { settings } = hookPaths(reg.scope, io.env, cwd);
  if (!io.granted({ name: "read", path: settings })) return [];
  return hookFindings(await io.read(settings).catch(() => null), settings, paths);
}

/** A client's entry for the relay, with the client's file and shape. */
export interface RegisteredEntry {
  target: Pick<Target, "client" | "label" | "path" | "keyRoute">;
  entry: unknown;
}

/**
 * Whether a client's entry gives the relay each provider's key variable as
 * that client starts it (pure): Claude Code passes its whole environment (the
 * environment section says whether the key is set here), Cursor and VS Code
 * resolve `${env:NAME}` in the entry, Claude Desktop takes only a literal
 * value in the entry. A key missing there fails every turn of that provider
 * (`missing_provider_key`): a problem for the default provider, else a
 * warning, each with its fix; a value is never shown. Codex's own entries
 * are checked from `config/read` (the environment section).
 */
export function registrationKeyFindings(
  registered: RegisteredEntry | undefined,
  keys: readonly ProviderKey[],
  relay: string,
): Finding[] {
  if (!registered || keys.length === 0 || registered.target.keyRoute === "env_vars") return [];
  const { target, entry } = registered;
  const findings: Finding[] = [];
  for (const k of keys) {
    const state = entryKeyState(target.keyRoute, entry, k.envKey);
    const what = `model provider ${k.provider}${k.active ? " (the default)" : ""}`;
    const ok = {
      inherited:
        `${target.label} starts codex-relay with its own environment: ${what} gets ${k.envKey} when it is set where ${target.label} starts`,
      referenced:
        `${target.label}'s entry for codex-relay passes ${k.envKey} from ${target.label}'s environment (${what})`,
      set: `${target.label}'s entry for codex-relay sets ${k.envKey} (${what}; value not shown)`,
    } as const;
    if (state === "inherited" || state === "referenced" || state === "set") {
      findings.push({ level: state === "inherited" ? "info" : "ok", text: ok[state] });
      continue;
    }
    findings.push({
      level: k.active ? "problem" : "warn",
      text: `${target.label}'s entry for codex-relay ${
        state === "unexpanded"
          ? `gives ${k.envKey} a reference ${target.label} does not expand`
          : `does not give it ${k.envKey}`
      }: ${target.label} starts codex-relay without it, so turns of ${what} fail (missing_provider_key: Missing environment variable)`,
      fix: keyFix(target, k.envKey, relay),
    });
  }
  return findings;
}

function keyFix(target: RegisteredEntry["target"], name: string, relay: string): string {
  if (target.keyRoute === "inherited") {
    return `remove "${name}" from the "env" of codex-relay's entry in ${target.path} (${target.label} passes its own environment) and set it where ${target.label} starts, then restart ${target.label}`;
  }
  if (target.keyRoute === "literal") {
    return `${target.label} starts codex-relay with only USER, HOME, PATH and the entry's "env", and takes only literal values there: add "${name}": "<its value>" to the "env" of codex-relay's entry in ${target.path} yourself, then restart ${target.label} (install keeps it)`;
  }
  return `install for ${target.label} again (${relay} install --client ${target.client} prints the command; it adds "${name}": "${
    keyReference(name)
  }"), or add that to the "env" of codex-relay's entry in ${target.path}, then restart ${target.label}`;
}
