/**
 * `codex_steer` (turn-start level): adds input to the turn this relay runs
 * on a thread (`src/turn/turn_steer.ts`).
 * @module
 */

import { z } from "zod";
import { RelayError } from "../../core/errors.ts";
import { clientMessageId, messageText, threadRef } from "../../ops/inputs.ts";
import { resolveRef } from "../../ops/resolve_thread.ts";
import { steerOutput, steerRun } from "../../turn/turn_steer.ts";
import type { Tool } from "../tool.ts";
import { sentences } from "../text.ts";

const input = z.strictObject({
  threadId: threadRef,
  clientMessageId: clientMessageId.optional().describe(
    "The run to steer (default: codex-relay's run on the thread)",
  ),
  text: messageText,
});

/** The `codex_steer` tool. */
export const steerTool: Tool<typeof input, typeof steerOutput> = {
  name: "codex_steer",
  title: "Steer a turn",
  description:
    "Adds text to codex-relay's running turn on the thread (not a review); never starts a turn. steered: codex_wait_reply with the new clientMessageId reads the turn's answer.",
  inputSchema: input,
  outputSchema: steerOutput,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  enabled: (caps) => caps.turnStart,
  async run(args, ctx) {
    const threadId = await resolveRef(ctx.connection, args.threadId, ctx.signal);
    if (threadId instanceof RelayError) {
      return {
        status: "unavailable" as const,
        reason: threadId.reason,
        message: threadId.message,
        threadId: args.threadId,
      };
    }
    return await steerRun(ctx.turns, ctx.clock, { ...args, threadId }, ctx.signal);
  },
  render(out) {
    if (out.status === "steered") {
      return sentences(
        `Steered the turn ${out.turnId} on thread ${out.threadId} with the message ${out.clientMessageId}`,
        "codex_wait_reply with that clientMessageId reads the turn's final answer",
      );
    }
    const why = out.reason ? ` (${out.reason})` : "";
    return sentences(`Not steered: ${out.status}${why}`, out.message);
  },
};
