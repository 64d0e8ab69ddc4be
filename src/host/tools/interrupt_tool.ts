/**
 * `codex_interrupt` (turn-start level): stops the turn this relay runs on a
 * thread and releases the thread.
 * @module
 */

import { z } from "zod";
import { threadId } from "../../ops/inputs.ts";
import type { Tool } from "../tool.ts";
import { interruptOutput, interruptResult } from "../../turn/run_result.ts";

const input = z.strictObject({ threadId });

/** The `codex_interrupt` tool. */
export const interruptTool: Tool<typeof input, typeof interruptOutput> = {
  name: "codex_interrupt",
  title: "Interrupt a turn codex-relay runs",
  description:
    "Stops the Codex turn that codex-relay is running on this thread (started by codex_run), then releases the thread so your own Codex can resume it. Turns run by other Codex processes are not touched.",
  inputSchema: input,
  outputSchema: interruptOutput,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  enabled: (caps) => caps.turnStart,
  async run({ threadId }, ctx) {
    return interruptResult(threadId, await ctx.turns.interrupt(threadId));
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
