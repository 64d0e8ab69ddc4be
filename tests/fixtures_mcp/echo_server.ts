/**
 * Throwaway MCP stdio server used by the client-transport tests: one `echo` tool.
 *
 * Run with explicit permissions only, e.g.
 * `deno run --no-prompt --frozen --cached-only --allow-env=ECHO_PREFIX tests/fixtures_mcp/echo_server.ts`.
 * It relies on the SDK's stdio behaviour: on stdin EOF the transport closes and,
 * with nothing else keeping the event loop alive, the process exits with code 0.
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const prefix = Deno.env.get("ECHO_PREFIX") ?? "";

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
