/**
 * Throwaway MCP stdio server used by the client-transport tests: one `echo` tool.
 *
 * Run with explicit permissions only, e.g.
 * `deno run --no-prompt --frozen --cached-only --allow-env=ECHO_PREFIX,ECHO_IGNORE_EOF tests/fixtures_mcp/echo_server.ts`.
 * It relies on the SDK's stdio behaviour: on stdin EOF the transport closes and,
 * with nothing else keeping the event loop alive, the process exits with code 0.
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const prefix = Deno.env.get("ECHO_PREFIX") ?? "";

// ECHO_IGNORE_EOF=1: stay up after stdin EOF and exit 0 only on SIGTERM (a
// server whose EOF handling is broken, as the client's close must notice).
if (Deno.env.get("ECHO_IGNORE_EOF") === "1") {
  const keepAlive = setInterval(() => {}, 60_000);
  Deno.addSignalListener("SIGTERM", () => {
    clearInterval(keepAlive);
    Deno.exit(0);
  });
}

serveStdio(() => {
  const server = new McpServer(
    { name: "echo-fixture", version: "0.0.1" },
    { instructions: "Test fixture: call `echo`." },
  );
  server.registerTool(
    "echo",
    {
      title: "Echo",
      description: "Returns the given text, prefixed with $ECHO_PREFIX.",
      inputSchema: z.object({ text: z.string().min(1) }),
      outputSchema: z.object({ echoed: z.string() }),
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ text }) => {
      const echoed = `${prefix}${text}`;
      return { content: [{ type: "text", text: echoed }], structuredContent: { echoed } };
    },
  );
  return server;
});
