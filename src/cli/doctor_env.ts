/**
 * The doctor's checks of the environment Codex gets: loader variables that
 * reach it empty, and model providers whose key variable (`env_key`) is not
 * set. The relay may not read those variables itself, so the key check asks
 * Codex, which inherits the environment: `codex doctor --json` reports
 * whether the active provider's variable is present (Codex 0.169, 0.171),
 * and `-c model_provider="NAME"` makes each configured provider the active
 * one in turn. Only the variable's name and present/missing are read.
 * @module
 */

import { blankedLoaderVars, INHERITED, spawnChild } from "../connect/process/child_env.ts";
import { relayServerNames } from "../turn/recursion_guard.ts";

/** One line of the doctor's report. */
export interface Finding {
  level: "ok" | "info" | "warn" | "problem";
  text: string;
  fix?: string;
}

/** Most providers checked (one `codex doctor` each). */
export const MAX_PROVIDERS_CHECKED = 8;

const SAFE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The loader variables the relay's spawns found (they reach Codex empty). */
export function loaderFinding(): Finding | undefined {
  const names = blankedLoaderVars();
  if (names.length === 0) return undefined;
  return {
    level: "warn",
    text: `${
      names.join(", ")
    } set in the environment codex-relay was started with: Deno does not pass loader variables (LD_*, DYLD_*) to the processes codex-relay starts, so codex app-server gets ${
      names.length === 1 ? "it" : "them"
    } empty`,
    fix:
      "if Codex needs them, run it through the daemon (--app-server daemon: the daemon keeps the environment it was started with); otherwise remove them from the MCP client's entry",
  };
}

/** A configured provider with its key variable. */
export interface ProviderKey {
  provider: string;
  envKey: string;
  active: boolean;
}

/** The providers of a `config/read` config that read their key from a variable. */
export function providerKeys(config: unknown): ProviderKey[] {
  const c = typeof config === "object" && config !== null ? config as Record<string, unknown> : {};
  const providers = c.model_providers;
  if (typeof providers !== "object" || providers === null) return [];
  const keys: ProviderKey[] = [];
  for (const [provider, entry] of Object.entries(providers as Record<string, unknown>)) {
    const envKey = (entry as { env_key?: unknown } | null)?.env_key;
    if (typeof envKey !== "string" || !SAFE_NAME.test(provider) || !VAR_NAME.test(envKey)) continue;
    keys.push({ provider, envKey, active: c.model_provider === provider });
  }
  // The active provider first: it is the one every turn uses by default.
  return keys.sort((a, b) => Number(b.active) - Number(a.active)).slice(0, MAX_PROVIDERS_CHECKED);
}

/**
 * What `codex doctor --json` says of the active provider's key variable:
 * `present`, `missing`, or undefined when it does not say (another version).
 */
export function keyPresence(report: string, envKey: string): "present" | "missing" | undefined {
  try {
    const details = JSON.parse(report)?.checks?.["auth.credentials"]?.details;
    const said = details?.["provider auth env var"];
    if (said === `${envKey} (present)`) return "present";
    if (said === `${envKey} (missing)`) return "missing";
  } catch {
    // Not a report.
  }
  return undefined;
}

/** Runs `codex doctor --json` with `provider` active; its stdout, or undefined. */
async function codexDoctor(provider: string, command = "codex"): Promise<string | undefined> {
  try {
    const { child } = spawnChild(command, {
      args: ["doctor", "--json", "-c", `model_provider="${provider}"`],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(20_000),
    }, INHERITED);
    const out = await child.output();
    return new TextDecoder().decode(out.stdout);
  } catch {
    return undefined;
  }
}

/** One finding per provider whose key variable is not set where Codex runs. */
export async function providerKeyFindings(
  keys: readonly ProviderKey[],
  report: (provider: string) => Promise<string | undefined> = codexDoctor,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const k of keys) {
    const what = `model provider ${k.provider}${k.active ? " (the default)" : ""}`;
    const presence = keyPresence((await report(k.provider)) ?? "", k.envKey);
    if (presence === "present") {
      findings.push({ level: "ok", text: `${what}: its key variable ${k.envKey} is set` });
    } else if (presence === "missing") {
      findings.push({
        level: "warn",
        text:
          `${what} reads its key from ${k.envKey}, which is not set in the environment codex-relay was started with: its turns fail (Missing environment variable)`,
        fix:
          `set ${k.envKey} in the "env" of codex-relay's entry in the MCP client (or in the environment the client starts from), then restart the client`,
      });
    } else {
      findings.push({
        level: "info",
        text:
          `${what} reads its key from ${k.envKey}; whether it is set could not be checked (codex doctor --json did not say)`,
      });
    }
  }
  return findings;
}

/**
 * Whether each of Codex's own entries for codex-relay (`mcp_servers` of
 * `config/read`) passes every provider's key variable: Codex starts MCP
 * servers with only the variables an entry names (`env_vars`, or sets in
 * `env`), so a key set in this terminal may never reach the relay Codex
 * starts. `relay` is the command that runs this relay's CLI (for the fix).
 */
export function codexEntryFindings(
  config: unknown,
  keys: readonly ProviderKey[],
  relay: string,
): Finding[] {
  if (keys.length === 0) return [];
  const servers = (config as { mcp_servers?: Record<string, unknown> } | null)?.mcp_servers ?? {};
  const findings: Finding[] = [];
  for (const name of relayServerNames(config)) {
    const entry = servers[name] as { env_vars?: unknown; env?: unknown };
    const passed = new Set([
      ...(Array.isArray(entry.env_vars) ? entry.env_vars.filter((v) => typeof v === "string") : []),
      ...(typeof entry.env === "object" && entry.env !== null ? Object.keys(entry.env) : []),
    ]);
    const missing = keys.filter((k) => !passed.has(k.envKey));
    const where = `Codex's entry for codex-relay (mcp_servers.${name})`;
    if (missing.length === 0) {
      findings.push({
        level: "ok",
        text: `${where} passes the providers' key variables (${
          keys.map((k) => k.envKey).join(", ")
        })`,
      });
      continue;
    }
    const vars = missing.map((k) => k.envKey);
    findings.push({
      level: missing.some((k) => k.active) ? "problem" : "warn",
      text: `${where} does not pass ${
        vars.join(", ")
      } (not in its env_vars): Codex starts codex-relay without ${
        vars.length === 1 ? "it" : "them"
      }, so turns of model provider ${
        missing.map((k) => k.provider).join(", ")
      } run through codex-relay from Codex fail (Missing environment variable)`,
      fix:
        `install for Codex again (${relay} install --client codex prints the command; it adds the providers' key variables to env_vars), or add ${
          vars.map((v) => JSON.stringify(v)).join(", ")
        } to env_vars of [mcp_servers.${name}] in Codex's config.toml`,
    });
  }
  return findings;
}

/**
 * The environment section: loader variables, providers' key variables (of
 * `config/read`), and whether Codex's own entry for the relay passes them on.
 */
export async function environmentFindings(
  read: unknown,
  relay: string,
  command = "codex",
): Promise<Finding[]> {
  const config = (read as { config?: unknown } | null)?.config;
  const loader = loaderFinding();
  const keys = providerKeys(config);
  return [
    ...(loader ? [loader] : []),
    ...await providerKeyFindings(keys, (p) => codexDoctor(p, command)),
    ...codexEntryFindings(config, keys, relay),
  ];
}
