/**
 * Help text.
 * @module
 */

/** The line printed after a usage error (instead of the whole usage). */
export const USAGE_HINT = "Run 'codex-relay help' for the commands and options.";

/** The topics `codex-relay help TOPIC` knows (install and uninstall have their own text). */
export const HELP_TOPICS: readonly string[] = ["serve", "doctor", "install", "uninstall"];

/** Said once on stderr when `serve` starts in a terminal, where it would look hung. */
export function servingNotice(version: string): string {
  return `codex-relay ${version}: serving MCP on stdin/stdout. An MCP client starts it this way (codex-relay help install registers it); press Ctrl-D or Ctrl-C to stop.\n`;
}

/** The usage text printed by `help` and `--help`. */
export function helpText(version: string): string {
  return `codex-relay ${version}: an MCP server (stdio) for local OpenAI Codex threads

Usage:
  codex-relay serve [options]    Serve MCP on stdin/stdout
  codex-relay doctor [options]   Check codex, its app-server and the permission set
  codex-relay install --client CLIENT [--scope user|project] [--allow-reply-read]
                                 Print the entry for an MCP client and the command that
                                 writes it (codex-relay install --help); uninstall likewise
  codex-relay help [install]      This text, or the install options
  codex-relay --help | --version

Serve options:
  --allow-reply-read               Add codex_read_reply and codex_wait_reply (final answers only)
  --allow-turn-start               Add codex_run and codex_interrupt (runs turns, forwards approvals)
  --auto-approve-mcp-tools         With --allow-turn-start: accept MCP tool-call approvals unasked
  --disable-codex-mcp-server NAME  With --allow-turn-start: disable this Codex MCP server in turns
                                   the relay runs (repeatable; NAME is [A-Za-z0-9_-]+)
  --log-level LEVEL                debug, info, warn (default), error, silent; logs go to stderr
  --app-server MODE                spawn (default: a private codex app-server per call), daemon
                                   (the running daemon of CODEX_HOME, via codex app-server proxy)
                                   or unix:///absolute/path.sock (a daemon socket, e.g. over SSH)

Each flag may be given once (except --disable-codex-mcp-server). Unknown or repeated flags exit 64.
`;
}
