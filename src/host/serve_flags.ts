/**
 * The options of `serve`: as the CLI parses them (used by the host and
 * `doctor`), and as the library entry takes them ({@linkcode ServeOptions},
 * checked by {@linkcode serveFlags}).
 * @module
 */

import { codexPathProblem } from "../connect/process/codex_binary.ts";
import type { LogLevel } from "../core/log.ts";
import type { AppServerMode } from "../connect/app_server_mode.ts";
import { MCP_SERVER_NAME } from "../turn/recursion_guard.ts";

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
  /** `--allow-worktrees [--git PATH]`: the git to run (`git` on PATH unless named). */
  worktrees?: { git: string };
}

/**
 * Options of the library entry `serve` (`mod.ts`). It reads the MCP client's
 * messages (newline-delimited JSON-RPC) from `readable` and writes its own to
 * `writable`; it touches neither the process's stdin and stdout nor its
 * signal handlers, and logs to stderr.
 *
 * @example
 * ```ts ignore
 * import { serve, type ServeOptions } from "@codex-relay/cli";
 * const options: ServeOptions = {
 *   readable: Deno.stdin.readable,
 *   writable: Deno.stdout.writable,
 *   allowReplyRead: true,
 * };
 * await serve(options);
 * ```
 */
export interface ServeOptions {
  /** The MCP client's messages to the relay, one JSON-RPC message per line. */
  readable: ReadableStream<Uint8Array>;
  /** Where the relay writes its messages to the client, one per line (left open at the end). */
  writable: WritableStream<Uint8Array>;
  /**
   * Ends the serving as SIGTERM ends the CLI's: calls are cancelled, the
   * relay's turns and app-servers end, every request read gets an answer,
   * and `serve` resolves. Without it, serving ends when `readable` ends.
   */
  signal?: AbortSignal;
  /**
   * How Codex is reached: `"spawn"` (the default: private `codex app-server`
   * processes), `"daemon"` (the app-server daemon of the CODEX_HOME), or a
   * daemon's control socket `{ socket: "/absolute/path.sock" }`.
   */
  appServer?: "spawn" | "daemon" | { socket: string };
  /** Adds `codex_read_reply` and `codex_wait_reply` (the reply-read level). */
  allowReplyRead?: boolean;
  /** Adds `codex_run`, `codex_interrupt` and `codex_withdraw_message` (the turn-start level). */
  allowTurnStart?: boolean;
  /** Auto-accepts MCP tool-call approvals of turns the relay runs (needs `allowTurnStart`). */
  autoApproveMcpTools?: boolean;
  /** Codex MCP server entries to disable in turns the relay runs (needs `allowTurnStart`). */
  disableCodexMcpServers?: string[];
  /** What is logged to stderr (default `warn`). */
  logLevel?: "debug" | "info" | "warn" | "error" | "silent";
  /**
   * The Codex executable to run, by absolute path (as `serve --codex`);
   * default: `codex` on PATH. The process needs run permission on it.
   */
  codex?: string;
  /** Adds `codex_run {worktree}` and `codex_worktree` (needs `allowTurnStart`); runs `git`. */
  allowWorktrees?: boolean;
  /** The git to run with `allowWorktrees` (default `git` on PATH); needs run permission. */
  git?: string;
}

/**
 * The {@linkcode ServeFlags} of library options; a `TypeError` saying what
 * is wrong for options the CLI would refuse.
 *
 * @example
 * ```ts ignore
 * serveFlags({ readable, writable, appServer: "daemon" }).appServer; // { kind: "daemon" }
 * ```
 */
export function serveFlags(options: ServeOptions): ServeFlags {
  const turnStart = options.allowTurnStart === true;
  const disabled = options.disableCodexMcpServers ?? [];
  const bad = disabled.find((name) => !MCP_SERVER_NAME.test(name));
  if (bad !== undefined) {
    throw new TypeError(
      `disableCodexMcpServers takes names of letters, digits, '_' and '-' (got '${bad}')`,
    );
  }
  if (!turnStart && (options.autoApproveMcpTools || disabled.length > 0)) {
    throw new TypeError(
      "autoApproveMcpTools and disableCodexMcpServers need allowTurnStart: they apply to turns the relay runs",
    );
  }
  return {
    allowReplyRead: options.allowReplyRead === true,
    allowTurnStart: turnStart,
    autoApproveMcpTools: options.autoApproveMcpTools === true,
    disableCodexMcpServers: [...disabled],
    logLevel: options.logLevel ?? "warn",
    appServer: appServerMode(options.appServer),
    ...(options.codex === undefined ? {} : { codex: codexPath(options.codex) }),
    ...(options.allowWorktrees === true ? worktreesOf(turnStart, options.git) : {}),
  };
}

function worktreesOf(turnStart: boolean, git: unknown): Pick<ServeFlags, "worktrees"> {
  if (!turnStart) throw new TypeError("allowWorktrees needs allowTurnStart");
  if (git !== undefined && (typeof git !== "string" || git === "")) {
    throw new TypeError("git must be a path to the git executable");
  }
  return { worktrees: { git: git ?? "git" } };
}

function codexPath(value: unknown): string {
  const problem = typeof value === "string" ? codexPathProblem(value) : "must be a string";
  if (problem !== undefined) throw new TypeError(`codex ${problem}`);
  return value as string;
}

function appServerMode(target: ServeOptions["appServer"]): AppServerMode {
  if (target === undefined || target === "spawn") return { kind: "spawn" };
  if (target === "daemon") return { kind: "daemon" };
  if (typeof target === "object" && target !== null && typeof target.socket === "string") {
    if (!target.socket.startsWith("/")) {
      throw new TypeError(`appServer.socket must be an absolute path (got '${target.socket}')`);
    }
    return { kind: "unix", path: target.socket };
  }
  throw new TypeError(`appServer takes "spawn", "daemon" or { socket: "/absolute/path.sock" }`);
}
