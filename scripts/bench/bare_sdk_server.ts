/**
 * `deno task bench`: the bare MCP SDK v2 server the relay's start-up, idle
 * RSS and warm call are measured against: one tool that answers at once,
 * started exactly as the relay is (`relayArgs`' Deno flags and permission
 * set). Exits on stdin EOF.
 * @module
 */

import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

serveStdio(() => {
  const server = new McpServer({ name: "bare-sdk", version: "0.0.1" });
  server.registerTool(
    "echo",
    {
      description: "Returns the given text.",
      inputSchema: z.object({ text: z.string() }),
      outputSchema: z.object({ echoed: z.string() }),
    },
    ({ text }) => ({ content: [{ type: "text", text }], structuredContent: { echoed: text } }),
  );
  return server;
});
