/**
 * `--app-server MODE`: how the relay reaches Codex. `spawn` (a private
 * `codex app-server` per operation), `daemon` (the shared daemon of the
 * relay's CODEX_HOME) or `unix:///absolute/path.sock` (a daemon's control
 * socket at that path, e.g. forwarded over SSH).
 * @module
 */

import { UsageError } from "../core/usage_error.ts";
import { type AppServerMode, DEFAULT_APP_SERVER } from "../connect/app_server_mode.ts";

export type { AppServerMode };

const USAGE = "--app-server takes spawn, daemon or unix:///absolute/path.sock";

/** Parses the flag's value strictly; anything else is a usage error. */
export function parseAppServerMode(value: string | undefined): AppServerMode {
  if (value === undefined || value === "spawn") return DEFAULT_APP_SERVER;
  if (value === "daemon") return { kind: "daemon" };
  if (!value.startsWith("unix://")) throw new UsageError(`${USAGE} (got '${clip(value)}')`);
  const path = value.slice("unix://".length);
  if (!path.startsWith("/") || path === "/") {
    throw new UsageError(`${USAGE}: the socket path must be absolute (got '${clip(value)}')`);
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) {
    throw new UsageError(`${USAGE}: the socket path has a control character`);
  }
  return { kind: "unix", path };
}

function clip(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}
