/**
 * How the relay reaches Codex (`serve --app-server`): `spawn` (a private
 * `codex app-server` per operation), `daemon` (the shared daemon of the
 * relay's CODEX_HOME) or a daemon's control socket at an absolute path.
 * @module
 */

import type { DaemonTarget } from "./daemon/proxy_dial.ts";

/** The parsed mode. */
export type AppServerMode = { kind: "spawn" } | DaemonTarget;

/** The default mode. */
export const DEFAULT_APP_SERVER: AppServerMode = Object.freeze({ kind: "spawn" });

/** The flag's value for a mode (for messages and client entries). */
export function appServerFlag(mode: AppServerMode): string {
  return mode.kind === "unix" ? `unix://${mode.path}` : mode.kind;
}
