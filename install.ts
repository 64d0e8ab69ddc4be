/**
 * codex-relay's installer: writes the relay's entry into an MCP client's
 * config (Claude Code, Claude Desktop, Cursor, VS Code, Codex) in the
 * client's own format, after showing the diff and asking. It keeps a backup
 * (`<file>.codex-relay.bak`), leaves entries it did not write alone unless
 * told (`--force`), and `uninstall` reverses it.
 *
 * It runs with read permission on exactly the config file it edits (its temp
 * file and backup), and write permission on the client's own folder (which it
 * creates when missing, as the client would) or on exactly those files; the
 * relay itself never holds write permission. Print the exact command for your
 * client with `codex-relay install --client <client>`, or run it from a checkout:
 *
 * ```sh
 * deno run -P=install \
 *   --allow-read=$HOME/.cursor/mcp.json,$HOME/.cursor/mcp.json.codex-relay.tmp,$HOME/.cursor/mcp.json.codex-relay.bak \
 *   --allow-write=$HOME/.cursor install.ts --client cursor
 * ```
 *
 * Started without that permission it prints the exact command and exits 77.
 *
 * @module
 */

import { detectSource } from "./src/install/running.ts";
import { realInstallIo, runInstall } from "./src/install/run.ts";

/**
 * Runs the installer command line (`[install|uninstall] --client <client>
 * [--scope user|project] [--allow-reply-read] [--allow-turn-start] [--dry-run]
 * [--yes] [--force] [--print] [--print-command]`) and resolves with the exit code.
 *
 * @example Show what registering codex-relay in Cursor would change, writing nothing
 * ```ts ignore
 * import { install } from "@codex-relay/cli/install";
 * const code = await install(["--client", "cursor", "--dry-run"]);
 * ```
 */
export async function install(args: readonly string[]): Promise<number> {
  const source = detectSource(import.meta.url, Deno.execPath(), Deno.mainModule);
  const io = realInstallIo();
  try {
    return await runInstall(args, source, io);
  } catch (error) {
    const name = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    io.err(`codex-relay install: unexpected failure: ${name}\n`);
    return 70;
  }
}

if (import.meta.main) Deno.exit(await install(Deno.args));
