/**
 * How the relay reaches Codex (`serve --app-server`): `spawn` (a private
 * `codex app-server` per operation), `daemon` (the shared daemon of the
 * relay's CODEX_HOME) or a daemon's control socket at an absolute path.
 * @module
 */

/** Which daemon: the one of the relay's CODEX_HOME, or a control socket at a path. */
export type DaemonTarget = { kind: "daemon" } | { kind: "unix"; path: string };

/** The parsed mode. */
export type AppServerMode = { kind: "spawn" } | DaemonTarget;

/** The flag's value for a mode (for messages and client entries). */
export function appServerFlag(mode: AppServerMode): string {
  return mode.kind === "unix" ? `unix://${mode.path}` : mode.kind;
}

/**
 * The `serve` arguments that select `mode`: none for the default (spawn),
 * else `--app-server <value>`.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(appServerArgs({ kind: "daemon" }), ["--app-server", "daemon"]);
 * ```
 */
export function appServerArgs(mode: AppServerMode): string[] {
  return mode.kind === "spawn" ? [] : ["--app-server", appServerFlag(mode)];
}

/** How to start the daemon `target` names, for messages (the fix for `daemon_unavailable`). */
export function startAdvice(target: DaemonTarget): string {
  return target.kind === "unix"
    ? `nothing answers at ${target.path}: start the daemon on its machine (codex app-server daemon start) and check the socket forward`
    : "start it with `codex app-server daemon start` (same CODEX_HOME as the relay)";
}

/**
 * Whether the relay starts the app-server itself, so that Codex runs with the
 * relay's environment (a daemon runs with its own).
 */
export function startsAppServer(mode: AppServerMode): boolean {
  return mode.kind === "spawn";
}
