/**
 * A typed `tools/call` for tests: the result's `structuredContent` has the
 * type of the tool's own output schema (defined in `src/reply/schemas.ts`, one
 * source per shape), so a test reads `out.status` or `out.turn?.id` without a cast.
 * @module
 */

import type { CallToolResult, Client, RequestOptions } from "@modelcontextprotocol/client";
import type { z } from "zod";
import { interruptTool } from "../src/host/tools/interrupt_tool.ts";
import { listThreadsTool } from "../src/host/tools/list_threads_tool.ts";
import { queueMessageTool } from "../src/host/tools/queue_message_tool.ts";
import { readReplyTool } from "../src/host/tools/read_reply_tool.ts";
import { runTool } from "../src/host/tools/run_tool.ts";
import { reviewTool } from "../src/host/tools/review_tool.ts";
import { steerTool } from "../src/host/tools/steer_tool.ts";
import { waitReplyTool } from "../src/host/tools/wait_reply_tool.ts";
import { withdrawMessageTool } from "../src/host/tools/withdraw_message_tool.ts";
import { worktreeTool } from "../src/host/tools/worktree_tool.ts";
import { usageTool } from "../src/host/tools/usage_tool.ts";
import { forkTool } from "../src/host/tools/fork_tool.ts";
import { compactTool } from "../src/host/tools/compact_tool.ts";

/** Each tool's output schema by its name (`tests/unit/call_tool_test.ts` keeps it equal to `TOOLS`). */
export const OUTPUT_SCHEMAS = {
  codex_list_threads: listThreadsTool.outputSchema,
  codex_queue_message: queueMessageTool.outputSchema,
  codex_read_reply: readReplyTool.outputSchema,
  codex_wait_reply: waitReplyTool.outputSchema,
  codex_run: runTool.outputSchema,
  codex_review: reviewTool.outputSchema,
  codex_steer: steerTool.outputSchema,
  codex_interrupt: interruptTool.outputSchema,
  codex_withdraw_message: withdrawMessageTool.outputSchema,
  codex_worktree: worktreeTool.outputSchema,
  codex_usage: usageTool.outputSchema,
  codex_fork: forkTool.outputSchema,
  codex_compact: compactTool.outputSchema,
} as const;

/** A tool's name. */
export type ToolName = keyof typeof OUTPUT_SCHEMAS;

/** What a tool returns in `structuredContent`: its output and `next`, what to do next (every result). */
export type ToolOutput<N extends ToolName> = z.output<(typeof OUTPUT_SCHEMAS)[N]> & {
  next: string;
};

/** A `tools/call` result of tool `N` (a type, not an interface: it is a `CallToolResult` too). */
export type ToolResult<N extends ToolName> = {
  /** Whether the call failed. */
  isError?: boolean;
  /** The text and other blocks. */
  content: CallToolResult["content"];
  /** The tool's output; absent on a protocol error result (`isError`), which a test checks first. */
  structuredContent: ToolOutput<N>;
};

/** The replies of a read, a wait or a run. */
export type Replies = NonNullable<ToolOutput<"codex_read_reply">["replies"]>;

/**
 * The texts of `replies`, in order (undefined for a moderated reply, which has none).
 *
 * @example
 * ```ts
 * assert.deepEqual(replyTexts(out.replies), ["Answer one."]);
 * ```
 */
export function replyTexts(replies: Replies | undefined): (string | undefined)[] | undefined {
  return replies?.map((r) => "text" in r ? r.text : undefined);
}

/** A `tools/call` result of a tool named at run time (the fault matrix, load). */
export interface CallResult {
  /** Whether the call failed. */
  isError?: boolean;
  /** The text and other blocks. */
  content?: unknown;
  /** The output, unchecked. */
  structuredContent?: Record<string, unknown>;
}

/**
 * Calls tool `name` with `args` through `client`, the SDK's request options
 * (`timeout`, `signal`, `onprogress`) passed on.
 *
 * @example
 * ```ts
 * const out = (await callTool(client, "codex_queue_message", { threadId, text })).structuredContent;
 * assert.equal(out.status, "queued");
 * ```
 */
export function callTool<N extends ToolName>(
  client: Client,
  name: N,
  args: Record<string, unknown>,
  options?: RequestOptions,
): Promise<ToolResult<N>>;
/** Calls a tool whose name is known at run time only: its output unchecked. */
export function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options?: RequestOptions,
): Promise<CallResult>;
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options?: RequestOptions,
): Promise<CallResult> {
  return await client.callTool({ name, arguments: args }, options) as CallResult;
}

/**
 * A tool's output without its `next` (what to do next, on every result), for
 * a test that compares the rest of the output whole.
 *
 * @example
 * ```ts
 * assert.deepEqual(withoutNext(out), { status: "withdrawn", threadId, clientMessageId });
 * ```
 */
export function withoutNext<T extends { next?: string }>(out: T): Omit<T, "next"> {
  const { next: _next, ...rest } = out;
  return rest;
}
