/**
 * `doctor --client CLIENT`: the relay's entry in that client's config file,
 * read with read permission on exactly that file (the relay holds none; the
 * finding gives the exact command that grants it), and the absolute paths
 * its command line names, which the doctor then asks Codex about
 * (src/cli/doctor_entry.ts): an entry registered from the wrong folder names
 * a file that does not exist, and the client says only "Failed to connect".
 * @module
 */

import { type ClientId, ENTRY_NAME, resolveTarget, type Scope } from "../install/clients.ts";
import { readJsonConfig } from "../install/json_edit.ts";
import { readTomlConfig } from "../install/toml_edit.ts";
import { commandPaths, type EntryPaths } from "./doctor_entry.ts";
import type { Finding } from "./doctor_env.ts";

/** Which client's registration to check. */
export interface Registration {
  client: ClientId;
  scope: Scope;
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
    "--client",
    reg.client,
    ...(reg.scope === "project" ? ["--scope", "project"] : []),
  ];
}

/**
 * Reads the relay's entry for `reg`: findings about the file and the entry,
 * and the entry's paths for the doctor to ask Codex about.
 */
export async function readRegistration(
  reg: Registration,
  io: RegistrationIo,
  cwd: string,
): Promise<{ findings: Finding[]; entries: EntryPaths[] }> {
  const target = resolveTarget(reg.client, reg.scope, { get: io.env, os: io.os, cwd });
  const where = `${target.label}'s entry for codex-relay in ${target.path}`;
  if (!io.granted({ name: "read", path: target.path })) {
    return {
      findings: [{
        level: "problem",
        text:
          `cannot read ${target.path} to check ${target.label}'s entry: the relay holds no read permission`,
        fix: `run exactly: ${withRead(io.relayWords, target.path, reg).join(" ")}`,
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
    findings: [{ level: "ok", text: `${where} starts ${paths.join(", ") || "a command on PATH"}` }],
    entries: [{ where, client: reg.client, paths }],
  };
}
