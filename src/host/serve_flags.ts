/**
 * The options of `serve` (parsed by the CLI, used by the host and `doctor`).
 * @module
 */

import type { LogLevel } from "../core/log.ts";
import type { AppServerMode } from "../connect/app_server_mode.ts";

/** Options of `serve`. */
export interface ServeFlags {
  /** Adds `codex_read_reply` and `codex_wait_reply`. */
  allowReplyRead: boolean;
  /** Adds `codex_run` and `codex_interrupt`. */
  allowTurnStart: boolean;
  /** Auto-accepts MCP tool-call approvals of turns the relay runs (unattended use). */
  autoApproveMcpTools: boolean;
  /** Codex MCP server entries to disable in turns the relay runs. */
  disableCodexMcpServers: string[];
  /** Log level on stderr. */
  logLevel: LogLevel;
  /** How Codex is reached (`--app-server`, default `spawn`). */
  appServer: AppServerMode;
  /**
   * `--codex PATH`: the Codex executable to run, by absolute path (what
   * `install` resolved, or the user's choice); unset: `codex` on PATH.
   */
  codex?: string;
}
