/**
 * Builds the MCP server: tools registered per capability level, each call
 * re-checking its capability, results as structured content plus one
 * paragraph of text, both carrying what to do next (`next`). Building a
 * server has no side effects (the SDK may build one per protocol probe).
 * @module
 */

import type { WorktreeDeps } from "../ops/worktree.ts";
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  McpServer,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ClientModes, RoundState } from "./input_rounds.ts";
import type { Clock } from "../core/clock.ts";
import type { TurnMachinery } from "../turn/turn_machinery.ts";
import type { QueuedHere } from "../ops/queued_here.ts";
import { z } from "zod";
import type { Logger } from "../core/log.ts";
import type { Connection } from "../connect/connection.ts";
import type { Capabilities } from "../core/capabilities.ts";
import { type CallContext, outputSchemaAt, type Tool, ToolRefusal } from "./tool.ts";
import { advertised, advertisedAnnotations, fixedSchema } from "./tool_schema.ts";
import { surfaceOf } from "./surface.ts";
import { PROMPTS } from "./prompts.ts";
import { textOf, withNext } from "./next_steps.ts";
import type { RunPush } from "./channels.ts";

/** What the server is built from. */
export interface ServerDeps {
  /** Server name and version for `initialize` / `server/discover`. */
  info: { name: string; version: string };
  /** Capabilities in force. */
  caps: Capabilities;
  /** The connection to the app-server shared by all calls. */
  connection: Connection;
  /** Every tool; each registers itself only when enabled. */
  tools: readonly Tool<z.ZodType, z.ZodType>[];
  /** Aborted at shutdown: cancels every call. */
  shutdown: AbortSignal;
  /** Logger. */
  log: Logger;
  /** Options passed to McpServer (request state verification, round caps). */
  serverOptions: ConstructorParameters<typeof McpServer>[1];
  /** Model-facing instructions. */
  instructions: string;
  /** The time source of waits. */
  clock: Clock;
  /** The messages this relay queued. */
  queuedHere: QueuedHere;
  /**
   * The turn runtimes, starts and elicitation router: loaded above the default level only
   * (undefined at the default level, whose two tools never use them).
   */
  machinery: TurnMachinery | undefined;
  /** Seals input-round state. */
  mintRound(state: RoundState): Promise<string>;
  /** Git and the worktrees' folder (`--allow-worktrees` only). */
  worktrees?: WorktreeDeps;
  /** The channel pushes (`--channels` only). */
  push?: RunPush;
}

/** Builds one McpServer instance with the enabled tools. */
export function buildServer(deps: ServerDeps): McpServer {
  const server = new McpServer(deps.info, {
    ...deps.serverOptions,
    // `--channels`: the experimental capability Claude Code reads.
    ...deps.push?.serverOptions,
    instructions: deps.instructions,
  });
  const surface = surfaceOf(deps.caps, deps.connection);
  for (const tool of deps.tools) {
    if (!tool.enabled(deps.caps)) continue;
    const exact = tool.exact;
    const description = typeof tool.description === "string"
      ? tool.description
      : tool.description(surface);
    server.registerTool(
      tool.name,
      exact
        ? {
          title: tool.title,
          description,
          inputSchema: fixedSchema(tool.inputSchema, exact.inputSchema),
          outputSchema: fixedSchema(tool.outputSchema, exact.outputSchema),
        }
        : {
          title: tool.title,
          description,
          inputSchema: advertised(tool.inputSchemaAt?.(deps.caps) ?? tool.inputSchema),
          outputSchema: advertised(withNext(outputSchemaAt(tool, deps.caps))),
          annotations: advertisedAnnotations(tool.annotations),
        },
      // deno-lint-ignore no-explicit-any
      ((args: unknown, mcp: ServerContext) => call(tool, args, mcp, deps, server)) as any,
    );
  }
  for (const prompt of PROMPTS) {
    if (!prompt.enabled(deps.caps) || deps.caps.compat) continue;
    server.registerPrompt(
      prompt.name,
      { title: prompt.title, description: prompt.description, argsSchema: z.object(prompt.args) },
      // The SDK validated `args` against argsSchema: strings, optional ones absent.
      // deno-lint-ignore no-explicit-any
      (args: any) => ({
        messages: [{
          role: "user" as const,
          content: { type: "text" as const, text: prompt.text(args) },
        }],
      }),
    );
  }
  return server;
}

async function call(
  tool: Tool<z.ZodType, z.ZodType>,
  args: unknown,
  mcp: ServerContext,
  deps: ServerDeps,
  server: McpServer,
): Promise<unknown> {
  if (!tool.enabled(deps.caps)) {
    return errorResult(`${tool.name} is not enabled at this capability level`);
  }
  const signal = AbortSignal.any([mcp.mcpReq.signal, deps.shutdown]);
  const token = mcp.mcpReq._meta?.progressToken;
  const ctx: CallContext = {
    connection: deps.connection,
    caps: deps.caps,
    signal,
    log: deps.log,
    mcp,
    clock: deps.clock,
    queuedHere: deps.queuedHere,
    get turns() {
      return machineryOf(deps, tool).turns;
    },
    get starts() {
      return machineryOf(deps, tool).starts;
    },
    get router() {
      return machineryOf(deps, tool).router;
    },
    mintRound: deps.mintRound,
    worktrees: deps.worktrees,
    clientModes: () => clientModes(server, mcp),
    progress: async (message, progress, total) => {
      if (token === undefined || signal.aborted) return;
      try {
        await mcp.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress, total, message },
        });
      } catch {
        // The client went away; the call ends on its own.
      }
    },
  };
  const started = performance.now();
  const waited = deps.push?.callStarted(tool.name, args);
  try {
    const out = await tool.run(args, ctx);
    deps.push?.resulted(tool.name, out);
    if (isInputRequired(out)) return out.inputRequired;
    if (tool.exact) return tool.exact.result(out);
    deps.log.debug("call", {
      tool: tool.name,
      ms: Math.round(performance.now() - started),
      status: (out as { status?: string }).status,
    });
    const explained = tool.explain(out, surfaceOf(deps.caps, deps.connection));
    return {
      content: [{ type: "text", text: textOf(explained) }],
      structuredContent: { ...(out as object), next: explained.next },
    };
  } catch (error) {
    if (error instanceof ToolRefusal) return errorResult(error.message);
    deps.log.error("call failed", {
      tool: tool.name,
      error: error instanceof Error ? error.name : "unknown",
    });
    return errorResult(`${tool.name} failed unexpectedly; see the server's log`);
  } finally {
    waited?.();
  }
}

/** The elicitation modes the calling client declared (envelope at 2026-07-28, handshake before). */
function clientModes(server: McpServer, mcp: ServerContext): ClientModes {
  const envelope = mcp.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ??
    server.server.getClientCapabilities();
  const e = caps?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!e) return { form: false, url: false };
  return { form: e.form !== undefined || e.url === undefined, url: e.url !== undefined };
}

function isInputRequired(out: unknown): out is { inputRequired: unknown } {
  return typeof out === "object" && out !== null && "inputRequired" in out;
}

function errorResult(text: string): { content: { type: "text"; text: string }[]; isError: true } {
  return { content: [{ type: "text", text }], isError: true };
}

/** The turn machinery a call reads; a default-level relay has none (its tools never read it). */
function machineryOf(deps: ServerDeps, tool: { name: string }): TurnMachinery {
  if (deps.machinery) return deps.machinery;
  throw new Error(`${tool.name} needs the turn machinery, which the default level does not load`);
}
