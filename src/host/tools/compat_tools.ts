/**
 * `serve --compat codex-mcp-server`: the removed `codex mcp-server`'s two
 * tools, `codex` (a new thread, its prompt run to the turn's end) and
 * `codex-reply` (the next prompt on a thread), on the relay's own run
 * machinery ({@linkcode runToEnd}): the same start checks, approvals through
 * the router, moderation held back. The result is the old one, `{threadId,
 * content}`, content the turn's final answer.
 * @module
 */

import { z } from "zod";
import { cleanText, messageText, runOptionShapes, threadRef } from "../../reply/inputs.ts";
import type { RunResult } from "../../reply/schemas.ts";
import { type CallContext, type Tool, type ToolInputRequired, TURN_ANNOTATIONS } from "../tool.ts";
import { replyText } from "../render_reply.ts";
import { explainRun, runToEnd } from "./run_tool.ts";
import {
  CODEX_ENTRY,
  CODEX_REPLY_ENTRY,
  COMPAT_NOTE,
  compatOptions,
  type Mapped,
} from "../compat_args.ts";
import type { StartResult } from "../../turn/turn_start.ts";
import { imageInputs, imagesInput } from "../../reply/images.ts";

/** What a compatibility call returns: the old result, and whether it is an error. */
const compatOutput = z.object({
  threadId: z.string(),
  content: z.string(),
  /** Not sent: turns the result into an `isError` one. */
  isError: z.boolean().optional(),
  /** Not sent as structured content: a second text block (a mapped field, the run's notes). */
  notes: z.array(z.string()).optional(),
});
type CompatOut = z.output<typeof compatOutput>;

const instructions = (what: string) => cleanText(what, 64 * 1024).optional();

const codexInput = z.strictObject({
  prompt: messageText,
  model: runOptionShapes.model,
  profile: z.string().optional(),
  cwd: z.string().max(4096).optional(),
  "approval-policy": z.enum(["untrusted", "on-failure", "on-request", "never"]).optional(),
  sandbox: runOptionShapes.sandbox,
  config: z.record(z.string(), z.unknown()).optional(),
  "base-instructions": instructions("base-instructions"),
  "developer-instructions": instructions("developer-instructions"),
  "compact-prompt": instructions("compact-prompt"),
  images: imagesInput,
});

const replyInput = z.strictObject({
  prompt: messageText,
  threadId: threadRef.optional(),
  conversationId: threadRef.optional(),
  images: imagesInput,
});

/** The result of a refusal: nothing was sent. */
function refused(threadId: string, content: string): CompatOut {
  return { threadId, content, isError: true };
}

/** The old result of a run: its final answer, or (isError) why there is none. */
export function compatResult(out: RunResult, notes: string[]): CompatOut {
  const threadId = out.threadId;
  const all = [...notes, ...(out.notes ?? [])];
  const status = out.turn?.status;
  if (status === "completed" && !out.failureClass) {
    const content = (out.replies ?? []).map((r) =>
      "moderated" in r ? replyText(r) : r.text + (r.truncated ? " […truncated]" : "")
    ).join("\n\n");
    return { threadId, content, ...(all.length ? { notes: all } : {}) };
  }
  const go = threadId ? ` To go on, call codex-reply with threadId ${threadId}.` : "";
  if (!out.turn) {
    // Why it did not start, in this surface's words (the relay's own texts name tools it lacks).
    const why = out.reason === "turn_running"
      ? "codex-relay still runs an earlier call's turn on this thread: call codex-reply again once that call returned"
      : out.message ?? "";
    const stored = out.receipt.status === "not_sent"
      ? "Nothing was sent to Codex."
      : "The prompt may be stored in the thread: check before sending it again.";
    return {
      threadId,
      content: `The turn did not start (${out.reason}): ${why}. ${stored}`,
      isError: true,
    };
  }
  const running = status === "running"
    ? ` The call returned before the turn ended (${
      out.reason ?? "cancelled, or codex-relay is shutting down"
    }).`
    : "";
  return { threadId, content: `${explainRun(out).said}${running}${go}`, isError: true };
}

/** Runs a mapped call to its end. */
async function follow(
  ctx: CallContext,
  threadId: string | undefined,
  notes: string[],
  start: () => Promise<StartResult>,
): Promise<CompatOut | ToolInputRequired> {
  const out = await runToEnd({ threadId }, ctx, start);
  return "inputRequired" in out ? out : compatResult(out, notes);
}

/** The MCP result of a compatibility call. */
function result(out: CompatOut): Record<string, unknown> {
  const content = [{ type: "text", text: out.content }];
  for (const note of out.notes ?? []) content.push({ type: "text", text: `codex-relay: ${note}` });
  return {
    content,
    structuredContent: { threadId: out.threadId, content: out.content },
    ...(out.isError ? { isError: true } : {}),
  };
}

// Stryker disable next-line ArrowFunction,ObjectLiteral,StringLiteral: a tool with `exact` answers with exact.result (server.ts); its explain is never called
const explain = (out: CompatOut) => ({ said: out.content, next: "" });

const ABSOLUTE = /^(\/|[A-Za-z]:[\\/])/;

/** Why a `codex` call's cwd (`got`) is refused. */
const cwdRefusal = (got: string) =>
  `cwd must be an absolute path (got ${got}): codex-relay does not read its own working directory, so it cannot resolve a relative or missing one; give the project's absolute path. Nothing was sent to Codex.`;

/** The compatibility `codex` tool. */
export const codexTool: Tool<typeof codexInput, typeof compatOutput> = {
  name: CODEX_ENTRY.name,
  title: CODEX_ENTRY.title,
  description: CODEX_ENTRY.description + COMPAT_NOTE,
  inputSchema: codexInput,
  outputSchema: compatOutput,
  annotations: TURN_ANNOTATIONS,
  enabled: (caps) => caps.turnStart && caps.compat === "codex-mcp-server",
  async run(args, ctx) {
    const cwd = args.cwd;
    if (cwd === undefined) return refused("", cwdRefusal("none"));
    if (!ABSOLUTE.test(cwd) || cwd.includes("\0")) {
      return refused("", cwdRefusal(JSON.stringify(cwd.slice(0, 200))));
    }
    const mapped: Mapped = compatOptions(args);
    if ("refused" in mapped) return refused("", mapped.refused);
    const options = { ...mapped.options, images: imageInputs(args.images) };
    return await follow(
      ctx,
      undefined,
      mapped.notes,
      () => ctx.starts.inCwd(cwd, args.prompt, ctx.signal, options),
    );
  },
  explain,
  exact: { inputSchema: CODEX_ENTRY.inputSchema, outputSchema: CODEX_ENTRY.outputSchema, result },
};

/** The compatibility `codex-reply` tool. */
export const codexReplyTool: Tool<typeof replyInput, typeof compatOutput> = {
  name: CODEX_REPLY_ENTRY.name,
  title: CODEX_REPLY_ENTRY.title,
  description: CODEX_REPLY_ENTRY.description +
    " (codex-relay: the threadId codex returned; optional images: [{path} | {dataUrl}].)",
  inputSchema: replyInput,
  outputSchema: compatOutput,
  annotations: TURN_ANNOTATIONS,
  enabled: (caps) => caps.turnStart && caps.compat === "codex-mcp-server",
  async run(args, ctx) {
    const { threadId, conversationId } = args;
    const ref = threadId ?? conversationId;
    if (ref === undefined) {
      return refused("", "either threadId or conversationId must be provided");
    }
    if (threadId !== undefined && conversationId !== undefined && threadId !== conversationId) {
      return refused(
        threadId,
        "threadId and conversationId name different threads: give threadId only. Nothing was sent to Codex.",
      );
    }
    const options = { images: imageInputs(args.images) };
    return await follow(
      ctx,
      ref,
      [],
      () => ctx.starts.inThread(ref, args.prompt, ctx.signal, options),
    );
  },
  explain,
  exact: {
    inputSchema: CODEX_REPLY_ENTRY.inputSchema,
    outputSchema: CODEX_REPLY_ENTRY.outputSchema,
    result,
  },
};
