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
 * or embed the server: {@linkcode serve} takes the MCP client's streams and
 * an abort signal, and leaves the process's stdin, stdout and signal
 * handlers alone:
 *
 * ```ts ignore
 * import { serve } from "@codex-relay/cli";
 * const stop = new AbortController();
 * const code = await serve({ readable, writable, signal: stop.signal, allowReplyRead: true });
 * ```
 *
 * The CLI itself is {@linkcode main}.
 *
 * @module
 */

import { main, VERSION } from "./src/cli/main.ts";
import { serve } from "./src/host/serve.ts";
import type { ServeOptions } from "./src/host/serve_flags.ts";

export { main, serve, type ServeOptions, VERSION };

if (import.meta.main) Deno.exit(await main(Deno.args));
