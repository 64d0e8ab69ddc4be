/**
 * The one factory of connections: from the `--app-server` value to a
 * {@linkcode Connection}, and the words that name it to a user. The layers
 * above `src/connect/` reach a backend only through here; none imports a
 * backend's module.
 * @module
 */

import type { Logger } from "../core/log.ts";
import type { AppServerMode } from "./app_server_mode.ts";
import type { Method } from "../codex/methods.ts";
import type { Connection, ConnectionLimits } from "./connection.ts";
import { startAdvice } from "./daemon/proxy_dial.ts";
import { SpawnConnection } from "./spawn/spawn_connection.ts";

/** What every backend is opened with. */
export interface OpenOptions {
  /** Methods that may be sent (besides `initialize`). */
  allowlist: ReadonlySet<Method>;
  /** The relay's version, sent in `initialize`. */
  version: string;
  /** Logger (stderr). */
  log?: Logger;
  /** The executable (default `codex`). */
  command?: string;
  /** The environment of the processes the backend starts (default: the curated set). */
  env?: Record<string, string>;
  /** Lower bounds than the defaults (never higher). */
  limits?: Partial<ConnectionLimits>;
}

/**
 * The connection `target` names. Side-effect free: nothing is spawned or
 * dialled before the first RPC. The daemon's backend is loaded only when it
 * is named (a spawn-mode relay never loads it).
 */
export async function openConnection(
  target: AppServerMode,
  options: OpenOptions,
): Promise<Connection> {
  if (target.kind === "spawn") return new SpawnConnection(options);
  const { DaemonConnection } = await import("./daemon/daemon_connection.ts");
  return new DaemonConnection({ ...options, target });
}

/** How a report names the app-server `target` reaches: "codex app-server" or "the app-server daemon". */
export function appServerName(target: AppServerMode): string {
  return target.kind === "spawn" ? "codex app-server" : "the app-server daemon";
}

/** {@linkcode appServerName} with where a daemon is ("the app-server daemon (of CODEX_HOME)"). */
export function appServerLabel(target: AppServerMode): string {
  if (target.kind === "spawn") return appServerName(target);
  const where = target.kind === "unix" ? `socket ${target.path}` : "of CODEX_HOME";
  return `${appServerName(target)} (${where})`;
}

/** The fix for `daemon_unavailable` at `target`, or undefined where no daemon is involved. */
export function unavailableFix(target: AppServerMode): string | undefined {
  return target.kind === "spawn" ? undefined : startAdvice(target);
}
