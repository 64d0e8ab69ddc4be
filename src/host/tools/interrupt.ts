/**
 * `codex_interrupt` (turn-start level): stops the turn this relay runs on a
 * thread and releases the thread.
 * @module
 */

import { z } from "zod";
import { threadId } from "../schemas.ts";
import { type Tool, ToolRefusal } from "../tool.ts";
import { replySchema } from "./read_reply.ts";
import { runReplies, runTurn } from "./run.ts";

const input = z.strictObject({ threadId });

const output = z.object({
  status: z.enum(["interrupted", "ended", "not_running"]),
  threadId: z.string(),
  turn: z.object({
    id: z.string().nullable(),
    status: z.enum(["completed", "failed", "interrupted", "running"]),
  }).nullable(),
  failureClass: z.enum(["capacity", "stalled", "auth", "bad_request", "internal", "unknown"])
    .optional(),
  error: z.string().optional(),
  replies: z.array(replySchema).optional(),
  nextCursor: z.string().nullable().optional(),
});

/** The `codex_interrupt` tool. */
export const interruptTool: Tool<typeof input, typeof output> = {
  name: "codex_interrupt",
  title: "Interrupt a turn codex-relay runs",
  description:
    "Stops the Codex turn that codex-relay is running on this thread (started by codex_run), then releases the thread so your own Codex can resume it. Turns run by other Codex processes are not touched.",
  inputSchema: input,
  outputSchema: output,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  enabled: (caps) => caps.turnStart,
  async run({ threadId }, ctx) {
    if (!ctx.turns) {
      throw new ToolRefusal("codex_interrupt is not enabled at this capability level");
    }
    const run = await ctx.turns.interrupt(threadId);
    if (!run) return { status: "not_running" as const, threadId, turn: null };
    const turn = runTurn(run.snapshot, false);
    const { failure, error } = run.snapshot;
    return {
      status: turn?.status === "interrupted" ? "interrupted" as const : "ended" as const,
      threadId,
      turn,
      ...(failure ? { failureClass: failure.failureClass } : {}),
      ...(error ? { error } : {}),
      ...runReplies(run),
    };
  },
  render(out) {
    if (out.status === "not_running") {
      return `codex-relay runs no turn on thread ${out.threadId}; nothing was interrupted.`;
    }
    const how = out.status === "interrupted"
      ? `was interrupted${out.error ? ` (${out.error})` : ""}`
      : `ended as ${out.turn?.status}, not by the interrupt${
        out.failureClass ? ` (failure class ${out.failureClass})` : ""
      }${out.error ? `: ${out.error}` : ""}`;
    return `The turn on thread ${out.threadId} ${how}; the thread is released.`;
  },
};
