/**
 * Help text.
 * @module
 */

/** The usage text printed by `--help` and after a usage error. */
export function helpText(version: string): string {
  return `codex-relay ${version}: an MCP server (stdio) for local OpenAI Codex threads

Usage:
  codex-relay serve [options]    Serve MCP on stdin/stdout
  codex-relay doctor [options]   Check codex, its app-server and the permission set
  codex-relay install --client CLIENT [--scope user|project] [--allow-reply-read]
                                 Print the entry for an MCP client and the command that
                                 writes it (codex-relay install --help); uninstall likewise
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
