/**
 * The recursion guard: config overrides that disable, for a thread the relay
 * starts or resumes, every Codex MCP server entry that launches codex-relay
 * itself, plus the ones named by `--disable-codex-mcp-server`.
 * @module
 */

import { asRelayError, RelayError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { Session } from "../connect/connection.ts";

/** A safe MCP server name: anything else would need quoting in Codex's config keys. */
export const MCP_SERVER_NAME: RegExp = /^[A-Za-z0-9_-]+$/;

const RELAY = /codex-relay/i;

/** Names of `mcp_servers` entries (from `config/read`) whose command line runs codex-relay. */
export function relayServerNames(config: unknown): string[] {
  const servers = (config as { mcp_servers?: unknown } | null)?.mcp_servers;
  if (typeof servers !== "object" || servers === null) return [];
  const names: string[] = [];
  for (const [name, entry] of Object.entries(servers as Record<string, unknown>)) {
    if (typeof entry !== "object" || entry === null) continue;
    const e = entry as Record<string, unknown>;
    const commandLine = [e.command, ...(Array.isArray(e.args) ? e.args : [])].filter((x) =>
      typeof x === "string"
    );
    if (e.enabled !== false && commandLine.some((part) => RELAY.test(part as string))) {
      names.push(name);
    }
  }
  return names;
}

/**
 * The `config` override for `thread/start` / `thread/resume`: dotted keys
 * `mcp_servers.<name>.enabled = false`. Names that would need quoting are
 * skipped (with a warning): a quoted key breaks Codex's config loading.
 */
export function guardOverrides(names: readonly string[], log: Logger): Record<string, boolean> {
  const config: Record<string, boolean> = {};
  for (const name of new Set(names)) {
    if (!MCP_SERVER_NAME.test(name)) {
      log.warn("mcp server name cannot be disabled safely", { length: name.length });
      continue;
    }
    config[`mcp_servers.${name}.enabled`] = false;
  }
  return config;
}

/**
 * Reads the effective Codex config (`config/read`, at `cwd` when given).
 * Fails closed: when the config cannot be read, the relay cannot tell whether
 * a turn would start codex-relay inside Codex (nor what the thread allows),
 * so it throws (a `RelayError` with the read's reason) and no turn is started.
 */
export async function readConfig(
  call: Session["call"],
  cwd: string | undefined,
  log: Logger,
): Promise<Record<string, unknown>> {
  try {
    return (await call("config/read", cwd ? { cwd } : {})).config;
  } catch (error) {
    const e = asRelayError(error);
    log.warn("config/read failed; no turn is started", { reason: e.reason });
    throw new RelayError(
      e.reason,
      `Codex's config could not be read, so codex-relay cannot disable its own MCP server entries for the turn (recursion guard): ${e.message}`,
      { written: false, rpcCode: e.rpcCode, cause: error },
    );
  }
}

/** The recursion guard's overrides for a config read with {@linkcode readConfig}. */
export function recursionOverrides(
  config: unknown,
  named: readonly string[],
  log: Logger,
): Record<string, boolean> {
  const found = relayServerNames(config);
  if (found.length) {
    log.info("disabling codex-relay MCP servers in the turn", { count: found.length });
  }
  return guardOverrides([...found, ...named], log);
}
