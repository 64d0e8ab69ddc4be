/**
 * codex-relay: a sandboxed MCP server (stdio) for local OpenAI Codex threads,
 * over Codex's own `codex app-server` protocol.
 *
 * Run it as a program:
 *
 * ```sh
 * deno run -P mod.ts serve
 * ```
 *
 * or import the CLI entry to embed it:
 *
 * ```ts
 * import { main } from "@codex-relay/cli";
 * const code = await main(["--version"]);
 * ```
 *
 * @module
 */

import { main, VERSION } from "./src/cli/main.ts";

export {
  /**
   * Runs the codex-relay command line and resolves with the exit code.
   *
   * @example Print the version
   * ```ts
   * import { main } from "@codex-relay/cli";
   * const code = await main(["--version"]);
   * ```
   */
  main,
  /**
   * The version of codex-relay.
   *
   * @example
   * ```ts
   * import { VERSION } from "@codex-relay/cli";
   * console.error(`codex-relay ${VERSION}`);
   * ```
   */
  VERSION,
};

if (import.meta.main) Deno.exit(await main(Deno.args));
