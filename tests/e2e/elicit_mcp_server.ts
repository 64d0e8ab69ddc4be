/**
 * A tiny stdio MCP server for end-to-end tests, built on the v2 SDK
 * (`npm:@modelcontextprotocol/server@2.4.0`).
 *
 * One tool, `elicit_colour`, sends a form elicitation (`colour` enum + `sure` boolean) to the
 * client and returns `elicitation result: <json>` as text. Codex 0.169 is a 2025-era MCP
 * client (legacy `initialize` handshake); the v2 SDK pins such a connection to its 2025-era
 * path, where `ctx.mcpReq.elicitInput` sends a push-style `elicitation/create` request.
 *
 * Arguments (all optional): `--log=<path>` appends one JSON line per event (started,
 * initialized, callTool, elicitResult, elicitError); `--tag=<anything>` is ignored and only
 * marks the process command line so tests can find it in the process table;
 * `--start-delay-ms=<n>` reads nothing from stdin for n ms (a server slow to start).
 *
 * @module
 */
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

/** The form the tool sends (what a client must answer with `content`). */
export const COLOUR_SCHEMA = {
  type: "object",
  properties: {
    colour: {
      type: "string",
      title: "Colour",
      description: "Your favourite colour",
      enum: ["red", "green", "blue"],
    },
    sure: { type: "boolean", title: "Sure?", default: true },
  },
  required: ["colour"],
} as const;

const logArg = Deno.args.find((a) => a.startsWith("--log="));
const delayArg = Deno.args.find((a) => a.startsWith("--start-delay-ms="));
const startDelayMs = Number(delayArg?.slice("--start-delay-ms=".length) ?? 0);
const logPath = logArg?.slice("--log=".length);

function log(ev: string, data: Record<string, unknown> = {}): void {
  if (!logPath) return;
  const line = JSON.stringify({ t: Date.now(), ev, pid: Deno.pid, ...data }) + "\n";
  Deno.writeTextFileSync(logPath, line, { append: true });
}

function main(): void {
  const server = new McpServer({ name: "elicitor", version: "0.0.1" }, {
    capabilities: { tools: {} },
  });

  server.registerTool(
    "elicit_colour",
    {
      description: "Ask the user for their favourite colour via MCP elicitation.",
      inputSchema: z.object({ question: z.string().optional() }),
    },
    async ({ question }, ctx) => {
      log("callTool", { question: question ?? null });
      try {
        const result = await ctx.mcpReq.elicitInput({
          mode: "form",
          message: question ?? "What is your favourite colour?",
          requestedSchema: {
            type: "object",
            properties: {
              colour: { ...COLOUR_SCHEMA.properties.colour, enum: ["red", "green", "blue"] },
              sure: { ...COLOUR_SCHEMA.properties.sure },
            },
            required: ["colour"],
          },
        });
        log("elicitResult", { result });
        return {
          content: [{ type: "text", text: `elicitation result: ${JSON.stringify(result)}` }],
        };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log("elicitError", { message });
        return {
          content: [{ type: "text", text: `elicitation failed: ${message}` }],
          isError: true,
        };
      }
    },
  );

  server.server.oninitialized = () => {
    log("initialized", {
      clientCapabilities: server.server.getClientCapabilities() ?? null,
      clientVersion: server.server.getClientVersion() ?? null,
    });
  };

  const transport = new StdioServerTransport();
  transport.onclose = () => log("closed");
  log("started");
  const connect = () =>
    server.connect(transport).catch((err) => {
      log("connectError", { message: String(err) });
      Deno.exit(1);
    });
  // A slow server (a cold `npx`, a remote one): nothing is read, so Codex's `initialize` waits.
  if (startDelayMs > 0) setTimeout(connect, startDelayMs);
  else connect();
}

if (import.meta.main) main();
