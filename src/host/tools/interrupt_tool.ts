/**
 * `codex_interrupt` (turn-start level): stops the turn this relay runs on a
 * thread and releases the thread; a message still queued (this relay's run
 * waiting behind another turn, or one it queued) is withdrawn instead
 * (`src/turn/turn_cancel.ts`).
 * @module
 */

import { z } from "zod";
import { asRelayError, RelayError } from "../../core/errors.ts";
import { clientMessageId, threadRef } from "../../reply/inputs.ts";
import { resolveRef } from "../../ops/resolve_thread.ts";
import type { Tool } from "../tool.ts";
import { interruptOutput } from "../../reply/schemas.ts";
import { interruptResult, withdrawnResult } from "../../turn/run_result.ts";
import { cancelOnThread } from "../../turn/turn_cancel.ts";
import { sentence, sentences } from "../text.ts";
import { reasonNext } from "../next_steps.ts";

const input = z.strictObject({
  threadId: threadRef.describe("Thread UUID or unique exact name"),
  clientMessageId: clientMessageId.optional().describe("Message to withdraw"),
});

/** The `codex_interrupt` tool. */
export const interruptTool: Tool<typeof input, typeof interruptOutput> = {
  name: "codex_interrupt",
  title: "Interrupt",
  description:
    "Stops codex-relay's turn on the thread or withdraws its queued message; never others'.",
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
    const failed = (e: RelayError) => ({
      status: "unavailable" as const,
      reason: e.reason,
      message: e.message,
      threadId: typeof threadId === "string" ? threadId : args.threadId,
      turn: null,
    });
    if (threadId instanceof RelayError) return failed(threadId);
    const deps = {
      connection: ctx.connection,
      registry: ctx.turns,
      clock: ctx.clock,
      queuedHere: ctx.queuedHere,
      readItems: ctx.caps.replyRead,
    };
    try {
      const done = await cancelOnThread(deps, threadId, args.clientMessageId, ctx.signal);
      return done.kind === "withdraw"
        ? withdrawnResult(done.result)
        : interruptResult(threadId, done.run);
    } catch (error) {
      return failed(asRelayError(error));
    }
  },
  explain(out) {
    switch (out.status) {
      case "unavailable":
        return {
          said: sentences(`Nothing was interrupted (${out.reason}): ${out.message}`),
          next: reasonNext(out.reason),
        };
      case "unknown":
        return {
          said: sentences(`Unknown (${out.reason}): ${out.message}`),
          next: "Call codex_withdraw_message to check whether it is still queued.",
        };
      case "withdrawn":
        return {
          said: sentences(`Withdrawn: ${out.message}`),
          next: "Nothing more to do for this message.",
        };
      case "not_running":
        return {
          said: out.message
            ? sentences(`Nothing was interrupted or withdrawn: ${out.message}`)
            : `Nothing was interrupted: codex-relay runs no turn on thread ${out.threadId}.`,
          next:
            "Nothing to stop: codex-relay interrupts only its own turns and withdraws only its own messages.",
        };
      case "interrupted":
        return {
          said: out.message
            ? sentences(`Interrupted on thread ${out.threadId}: ${out.message}`)
            : sentences(
              `Interrupted the turn on thread ${out.threadId}; the thread is released`,
              out.error,
            ),
          next: "The turn has ended and the thread is free: nothing more to stop.",
        };
    }
    const failure = out.failureClass ? ` (failure class ${out.failureClass})` : "";
    return {
      said: sentences(
        `The turn on thread ${out.threadId} had already ended as ${out.turn?.status}${failure}; the thread is released`,
        out.error ? sentence(out.error) : undefined,
      ),
      next: "The turn has ended: nothing to stop.",
    };
  },
};
