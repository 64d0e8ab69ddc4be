/**
 * Every tool the relay has, in registration order; each registers only at
 * the capability level its `enabled` names.
 * @module
 */

import type { z } from "zod";
import type { Capabilities } from "../../core/capabilities.ts";
import type { Tool } from "../tool.ts";
import { DEFAULT_TOOLS } from "./served_tools.ts";
import { withdrawMessageTool } from "./withdraw_message_tool.ts";
import { readReplyTool } from "./read_reply_tool.ts";
import { waitReplyTool } from "./wait_reply_tool.ts";
import { runTool } from "./run_tool.ts";
import { interruptTool } from "./interrupt_tool.ts";
import { reviewTool } from "./review_tool.ts";
import { steerTool } from "./steer_tool.ts";
import { worktreeTool } from "./worktree_tool.ts";
import { usageTool } from "./usage_tool.ts";
import { forkTool } from "./fork_tool.ts";
import { compactTool } from "./compact_tool.ts";
import { codexReplyTool, codexTool } from "./compat_tools.ts";

/** Every tool. */
export const TOOLS = [
  ...DEFAULT_TOOLS,
  readReplyTool,
  waitReplyTool,
  runTool,
  reviewTool,
  steerTool,
  interruptTool,
  withdrawMessageTool,
  usageTool,
  forkTool,
  compactTool,
  worktreeTool,
] as unknown as readonly Tool<z.ZodType, z.ZodType>[];

/** `--compat codex-mcp-server`'s tools: the removed `codex mcp-server`'s two, and no other. */
export const COMPAT_TOOLS = [codexTool, codexReplyTool] as unknown as readonly Tool<
  z.ZodType,
  z.ZodType
>[];

/** The tools served at these capabilities (each still checks its own level). */
export function toolsAt(caps: Capabilities): readonly Tool<z.ZodType, z.ZodType>[] {
  return caps.compat ? COMPAT_TOOLS : TOOLS;
}

/** The names of the tools registered at these capabilities, in registration order. */
export function toolNames(caps: Capabilities): string[] {
  return toolsAt(caps).filter((tool) => tool.enabled(caps)).map((tool) => tool.name);
}
