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

export { main, VERSION };

if (import.meta.main) Deno.exit(await main(Deno.args));
