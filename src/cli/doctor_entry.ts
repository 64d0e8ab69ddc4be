/**
 * The doctor's check of the paths Codex's own entries for codex-relay name
 * (`mcp_servers` of `config/read`): an entry registered from the wrong folder
 * names a Deno, a `deno.json` or a `mod.ts` that does not exist, and the
 * client then only says it failed to connect. The relay holds no read
 * permission, so it asks Codex (`fs/getMetadata`, metadata only), as
 * `codex_run` does for a `cwd`.
 * @module
 */

import { asRelayError } from "../core/errors.ts";
import type { Session } from "../connect/connection.ts";
import { relayServerNames } from "../turn/recursion_guard.ts";
import type { Finding } from "./doctor_env.ts";
import { CLIENTS } from "../install/clients.ts";

/**
 * The complete command that registers the relay again for `client` (none
 * known: the choices), as the README's install lines run it.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(
 *   reinstall("codex-relay", "cursor"),
 *   `sh -c "$(codex-relay install --client cursor --print-command)"`,
 * );
 * ```
 */
export function reinstall(relay: string, client?: string): string {
  return `sh -c "$(${relay} install --client ${client ?? CLIENT_CHOICE} --print-command)"`;
}

/** What stands for the client when the doctor was not told which. */
const CLIENT_CHOICE = `<${CLIENTS.join("|")}>`;

/** Most paths checked (one `fs/getMetadata` each). */
export const MAX_PATHS_CHECKED = 12;

const ABSOLUTE = /^(\/|[A-Za-z]:[\\/])/;

/** A client's entry for codex-relay with the absolute paths its command line names. */
export interface EntryPaths {
  /** Which entry, in words ("Codex's entry for codex-relay (mcp_servers.NAME)"). */
  where: string;
  /** The client, for the fix's `install --client`. */
  client: string;
  /** The command and the arguments that are absolute paths (a `--flag=/path` too). */
  paths: string[];
}

/**
 * The absolute paths an entry's command line names: its command, and
 * arguments (pure). A `--flag=a,b` list (Deno's `--allow-run=CODEX,/bin/kill`)
 * names each of its items.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const entry = { command: "/usr/bin/deno", args: ["run", "--allow-run=/opt/codex,/bin/kill"] };
 * assert.deepEqual(commandPaths(entry), ["/usr/bin/deno", "/opt/codex", "/bin/kill"]);
 * ```
 */
export function commandPaths(entry: unknown): string[] {
  const e = (typeof entry === "object" && entry !== null ? entry : {}) as {
    command?: unknown;
    args?: unknown;
  };
  const words = [e.command, ...(Array.isArray(e.args) ? e.args : [])]
    .filter((w): w is string => typeof w === "string")
    .flatMap((w) => /^--[a-z-]+=/.test(w) ? w.replace(/^--[a-z-]+=/, "").split(",") : [w]);
  return [...new Set(words.filter((w) => ABSOLUTE.test(w)))];
}

/** The absolute paths each of Codex's entries for codex-relay names (pure). */
export function entryPaths(config: unknown): EntryPaths[] {
  const servers = (config as { mcp_servers?: Record<string, unknown> } | null)?.mcp_servers ?? {};
  return relayServerNames(config).map((name) => ({
    where: `Codex's entry for codex-relay (mcp_servers.${name})`,
    client: "codex",
    paths: commandPaths(servers[name]),
  }));
}

/**
 * Asks Codex whether each path exists: `false` when Codex says it does not,
 * absent when it cannot tell (no such method, another error).
 */
export async function pathsExist(
  session: Session,
  entries: readonly EntryPaths[],
): Promise<Map<string, boolean>> {
  const known = new Map<string, boolean>();
  const all = [...new Set(entries.flatMap((e) => e.paths))].slice(0, MAX_PATHS_CHECKED);
  for (const path of all) {
    try {
      await session.call("fs/getMetadata", { path });
      known.set(path, true);
    } catch (error) {
      const e = asRelayError(error);
      if (e.rpcCode === undefined) throw error;
      if (/no such file|not found|cannot find/i.test(e.message)) known.set(path, false);
    }
  }
  return known;
}

/** One finding per entry that names a path Codex says does not exist. */
export function entryPathFindings(
  entries: readonly EntryPaths[],
  exists: ReadonlyMap<string, boolean>,
  relay: string,
): Finding[] {
  const findings: Finding[] = [];
  for (const { where, client, paths } of entries) {
    const missing = paths.filter((p) => exists.get(p) === false);
    if (missing.length === 0) continue;
    findings.push({
      level: "problem",
      text: `${where} starts ${
        missing.join(", ")
      }, which does not exist: the client cannot start codex-relay (it says only that it failed to connect)`,
      fix: `register it again from the relay you mean: ${
        reinstall(relay, client)
      } (its entry names absolute paths)`,
    });
  }
  return findings;
}
