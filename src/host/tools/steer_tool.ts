/**
 * `codex_steer` (turn-start level): adds input to the turn this relay runs
 * on a thread (`src/turn/turn_steer.ts`).
 * @module
 */

import { z } from "zod";
import { RelayError } from "../../core/errors.ts";
import { clientMessageId, messageText, threadRef } from "../../reply/inputs.ts";
import { resolveRef } from "../../ops/resolve_thread.ts";
import { steerOutput, type SteerResult } from "../../reply/schemas.ts";
import { steerRun } from "../../turn/turn_steer.ts";
import { imageInputs, imagesInput } from "../../reply/images.ts";
import type { Tool } from "../tool.ts";
import { sentences } from "../text.ts";
import { reasonNext } from "../next_steps.ts";

const input = z.strictObject({
  threadId: threadRef,
  clientMessageId: clientMessageId.optional().describe(
    "The run to steer (default: codex-relay's run on the thread)",
  ),
  text: messageText,
  images: imagesInput,
});

/** The next step after a steer that did not happen (unavailable: its reason's). */
const STEER_NEXT: Partial<Record<SteerResult["status"], string>> = {
  not_running:
    "Wait for the run's turn to start (codex_wait_reply), or start a turn with codex_run.",
  not_steerable: "A review cannot be steered: wait for it or stop it with codex_interrupt.",
  turn_changed: "The turn ended or changed: read it with codex_wait_reply, then run a new turn.",
  unknown: "The input may have reached the turn: codex_wait_reply with that clientMessageId tells.",
};

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
    const steer = { ...args, threadId, images: imageInputs(args.images) };
    return await steerRun(ctx.turns, ctx.clock, steer, ctx.signal);
  },
  explain(out) {
    if (out.status === "steered") {
      return {
        said: sentences(
          `Steered the turn ${out.turnId} on thread ${out.threadId} with the message ${out.clientMessageId}`,
        ),
        next: "Call codex_wait_reply with that clientMessageId to read the turn's final answer.",
      };
    }
    const why = out.reason ? ` (${out.reason})` : "";
    return {
      said: sentences(`Not steered: ${out.status}${why}`, out.message),
      next: STEER_NEXT[out.status] ?? reasonNext(out.reason),
    };
  },
};
