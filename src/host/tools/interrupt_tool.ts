/**
 * `codex_interrupt` (turn-start level): stops the turn this relay runs on a
 * thread and releases the thread.
 * @module
 */

import { z } from "zod";
import { RelayError } from "../../core/errors.ts";
import { threadRef } from "../../ops/inputs.ts";
import { resolveRef } from "../../ops/resolve_thread.ts";
import type { Tool } from "../tool.ts";
import { interruptOutput, interruptResult } from "../../turn/run_result.ts";
import { sentence, sentences } from "../text.ts";

const input = z.strictObject({ threadId: threadRef });

/** The `codex_interrupt` tool. */
export const interruptTool: Tool<typeof input, typeof interruptOutput> = {
  name: "codex_interrupt",
  title: "Interrupt a turn",
  description:
    "Stops the turn codex_run started on the thread and releases it; other processes' turns are untouched.",
  inputSchema: input,
  outputSchema: interruptOutput,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  enabled: (caps) => caps.turnStart,
  async run(args, ctx) {
    const threadId = await resolveRef(ctx.connection, args.threadId, ctx.signal);
    if (threadId instanceof RelayError) {
      return {
        status: "unavailable",
        reason: threadId.reason,
        message: threadId.message,
        threadId: args.threadId,
        turn: null,
      };
    }
    return interruptResult(threadId, await ctx.turns.interrupt(threadId));
  },
  render(out) {
    if (out.status === "unavailable") {
      return sentences(`Nothing was interrupted (${out.reason}): ${out.message}`);
    }
    if (out.status === "not_running") {
      return `Nothing was interrupted: codex-relay runs no turn on thread ${out.threadId}.`;
    }
    if (out.status === "interrupted") {
      return sentences(
        `Interrupted the turn on thread ${out.threadId}; the thread is released`,
        out.error,
      );
    }
    const failure = out.failureClass ? ` (failure class ${out.failureClass})` : "";
    return sentences(
      `The turn on thread ${out.threadId} had already ended as ${out.turn?.status}${failure}; the thread is released`,
      out.error ? sentence(out.error) : undefined,
    );
  },
};
