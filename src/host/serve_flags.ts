/**
 * The options of `serve`: as the library entry takes them
 * ({@linkcode ServeOptions}), and parsed ({@linkcode ServeFlags}, used by the
 * host and `doctor`) by the one parser of the CLI and the library,
 * {@linkcode serveFlags}.
 * @module
 */

import { codexPathProblem } from "../connect/process/codex_binary.ts";
import { LOG_LEVELS, type LogLevel } from "../core/log.ts";
import { UsageError } from "../core/usage_error.ts";
import type { AppServerMode } from "../connect/app_server_mode.ts";
import { MCP_SERVER_NAME } from "../turn/recursion_guard.ts";
import { appServerFlag } from "../connect/app_server_mode.ts";
import { missingNeed, serveOption, type ServeValues } from "../core/serve_options.ts";

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
  /** `--compat codex-mcp-server`: serves only the old server's `codex` and `codex-reply`. */
  compat?: "codex-mcp-server";
  /** `--channels`: declare `claude/channel` and push runs' ends (docs/design.md, "Push"). */
  channels?: true;
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
  /** `"codex-mcp-server"`: only the removed `codex mcp-server`'s two tools (needs `allowTurnStart`). */
  compat?: "codex-mcp-server";
  /** Declares `claude/channel` and pushes a run's end to Claude Code (needs `allowTurnStart`). */
  channels?: boolean;
}

/** What `serve` is given before {@linkcode serveFlags} checks it: the library's options, or the CLI's flags in the same shape. */
export type ServeSettings = Omit<ServeOptions, "readable" | "writable" | "signal" | "appServer"> & {
  /** As {@linkcode ServeOptions.appServer}; any other string is refused. */
  appServer?: ServeOptions["appServer"] | string;
};

/** Who gave the settings: the command line (flags, a usage error) or the library (options, a `TypeError`). */
export type ServeSource = "flags" | "options";

const APP_SERVER_USAGE: Record<ServeSource, string> = {
  flags: "--app-server takes spawn, daemon or unix:///absolute/path.sock",
  options: `appServer takes "spawn", "daemon" or { socket: "/absolute/path.sock" }`,
};

/**
 * The one parser of `serve`'s options, for the CLI and the library alike:
 * the {@linkcode ServeFlags} of `settings`, or the first thing wrong with
 * them, named as `source` names it (a {@linkcode UsageError} for flags, a
 * `TypeError` for options).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(serveFlags({ appServer: "daemon" }, "options").appServer, { kind: "daemon" });
 * assert.throws(() => serveFlags({ appServer: { socket: "/" } }, "options"), TypeError);
 * ```
 */
export function serveFlags(settings: ServeSettings, source: ServeSource): ServeFlags {
  const name = (key: keyof ServeSettings) => source === "flags" ? serveOption(key).flag : key;
  const fail = (message: string) =>
    source === "flags" ? new UsageError(message) : new TypeError(message);
  const flag = (
    key:
      | "allowReplyRead"
      | "allowTurnStart"
      | "autoApproveMcpTools"
      | "allowWorktrees"
      | "channels",
  ) => {
    const value = settings[key] ?? false;
    if (typeof value !== "boolean") throw fail(`${name(key)} must be true or false`);
    return value;
  };
  const logLevel = settings.logLevel ?? "warn";
  if (!(LOG_LEVELS as readonly unknown[]).includes(logLevel)) {
    throw fail(`${name("logLevel")} must be one of ${LOG_LEVELS.join(", ")}`);
  }
  const disabled = disabledServers(settings.disableCodexMcpServers, name("disableCodexMcpServers"));
  if (typeof disabled === "string") throw fail(disabled);
  const flags: ServeFlags = {
    allowReplyRead: flag("allowReplyRead"),
    allowTurnStart: flag("allowTurnStart"),
    autoApproveMcpTools: flag("autoApproveMcpTools"),
    disableCodexMcpServers: disabled,
    logLevel,
    appServer: appServerMode(settings.appServer, source, fail),
    ...(settings.codex === undefined
      ? {}
      : { codex: codexPath(settings.codex, name("codex"), fail) }),
    ...worktrees(flag("allowWorktrees"), settings.git, name, fail),
    ...compat(settings.compat, name("compat"), fail),
    ...(flag("channels") ? { channels: true as const } : {}),
  };
  const missing = missingNeed(valuesOfFlags(flags));
  if (missing) throw fail(`${name(missing[0])} needs ${name(missing[1])}`);
  return flags;
}

/**
 * The values of `flags` by option (`core/serve_options.ts`), as a command
 * line would give them: what `doctor` reports and printed commands pass on.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const flags = serveFlags({ allowTurnStart: true, allowWorktrees: true }, "options");
 * assert.deepEqual(valuesOfFlags(flags).git, "git");
 * ```
 */
export function valuesOfFlags(flags: ServeFlags): ServeValues {
  return {
    allowReplyRead: flags.allowReplyRead,
    allowTurnStart: flags.allowTurnStart,
    autoApproveMcpTools: flags.autoApproveMcpTools,
    disableCodexMcpServers: flags.disableCodexMcpServers,
    logLevel: flags.logLevel,
    appServer: appServerFlag(flags.appServer),
    ...(flags.codex === undefined ? {} : { codex: flags.codex }),
    ...(flags.worktrees ? { allowWorktrees: true, git: flags.worktrees.git } : {}),
    ...(flags.compat ? { compat: flags.compat } : {}),
    ...(flags.channels ? { channels: true } : {}),
  };
}

/** The servers to disable, or what is wrong with them. */
function disabledServers(value: unknown, name: string): string[] | string {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return `${name} takes a list of names`;
  const bad = value.find((server) => typeof server !== "string" || !MCP_SERVER_NAME.test(server));
  if (bad === undefined) return [...value];
  return `${name} takes a name of letters, digits, '_' and '-' (got '${
    clip(String(bad))
  }'); other names would need quoting in Codex's config`;
}

/** `allowWorktrees` with the git to run: an absolute path, else `git` on PATH. */
function worktrees(
  allow: boolean,
  git: unknown,
  name: (key: keyof ServeSettings) => string,
  fail: (message: string) => Error,
): Pick<ServeFlags, "worktrees"> {
  if (git !== undefined && !allow) throw fail(`${name("git")} needs ${name("allowWorktrees")}`);
  if (!allow) return {};
  return { worktrees: { git: git === undefined ? "git" : codexPath(git, name("git"), fail) } };
}

/** `compat`: the one surface it names, `codex-mcp-server`. */
function compat(
  value: unknown,
  name: string,
  fail: (message: string) => Error,
): Pick<ServeFlags, "compat"> {
  if (value === undefined) return {};
  if (value !== "codex-mcp-server") {
    throw fail(`${name} takes codex-mcp-server (got '${clip(String(value))}')`);
  }
  return { compat: value };
}

function codexPath(value: unknown, name: string, fail: (message: string) => Error): string {
  const problem = typeof value === "string" ? codexPathProblem(value) : "must be a string";
  if (problem !== undefined) throw fail(`${name}: ${problem}`);
  return value as string;
}

function appServerMode(
  value: ServeSettings["appServer"],
  source: ServeSource,
  fail: (message: string) => Error,
): AppServerMode {
  const usage = APP_SERVER_USAGE[source];
  if (value === undefined || value === "spawn") return { kind: "spawn" };
  if (value === "daemon") return { kind: "daemon" };
  if (typeof value !== "object" || value === null || typeof value.socket !== "string") {
    throw fail(`${usage} (got '${clip(String(value))}')`);
  }
  const path = value.socket;
  const shown = source === "flags" ? `unix://${path}` : path;
  if (!path.startsWith("/") || path === "/") {
    throw fail(`${usage}: the socket path must be absolute (got '${clip(shown)}')`);
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) {
    throw fail(`${usage}: the socket path has a control character`);
  }
  return { kind: "unix", path };
}

function clip(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}
