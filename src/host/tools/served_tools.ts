/**
 * The tools a relay serves, loaded by level: the default surface's two
 * tools come with the relay; every other tool (and the code behind it) is
 * loaded only when a flag serves it, so a default relay starts as light as
 * it can (docs/reliability.md, "Start-up against a bare MCP SDK v2 server").
 * @module
 */

import type { z } from "zod";
import type { Capabilities } from "../../core/capabilities.ts";
import type { Tool } from "../tool.ts";
import { listThreadsTool } from "./list_threads_tool.ts";
import { queueMessageTool } from "./queue_message_tool.ts";

/** The default surface (no flag): exactly these two tools, in registration order. */
export const DEFAULT_TOOLS = [listThreadsTool, queueMessageTool] as unknown as readonly Tool<
  z.ZodType,
  z.ZodType
>[];

/** Whether `caps` is the default level: no flag adds a tool. */
export function isDefaultLevel(caps: Capabilities): boolean {
  return !caps.replyRead && !caps.turnStart && !caps.worktrees && !caps.compat;
}

/**
 * The tools served at `caps`: {@linkcode DEFAULT_TOOLS} at the default level,
 * else `all_tools.ts`'s (loaded now).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const tools = await servedTools({ replyRead: false, turnStart: false });
 * assert.deepEqual(tools.map((t) => t.name), ["codex_list_threads", "codex_queue_message"]);
 * ```
 */
export async function servedTools(
  caps: Capabilities,
): Promise<readonly Tool<z.ZodType, z.ZodType>[]> {
  if (isDefaultLevel(caps)) return DEFAULT_TOOLS;
  return (await import("./all_tools.ts")).toolsAt(caps);
}
