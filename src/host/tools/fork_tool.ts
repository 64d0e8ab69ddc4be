/**
 * `codex_fork` (turn-start level): a new thread with a thread's history
 * (`src/ops/fork_thread.ts`); the new thread runs nothing until a run.
 * @module
 */

import { z } from "zod";
import { runOptionShapes, threadRef } from "../../reply/inputs.ts";
import { forkOn } from "../../ops/fork_thread.ts";
import { forkOutput, type ForkResult } from "../../reply/schemas.ts";
import type { Tool } from "../tool.ts";
import { sentences } from "../text.ts";
import { reasonNext } from "../next_steps.ts";

const input = z.strictObject({
  threadId: threadRef,
  name: runOptionShapes.name.describe("A name for the new thread, up to 200 characters"),
});

/** The `codex_fork` tool. */
export const forkTool: Tool<typeof input, typeof forkOutput> = {
  name: "codex_fork",
  title: "Fork a thread",
  description:
    "Makes a new thread with a thread's history (not a running turn's), the original untouched. Returns newThreadId for codex_run.",
  inputSchema: input,
  outputSchema: forkOutput,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  enabled: (caps) => caps.turnStart,
  async run({ threadId, name }, ctx): Promise<ForkResult> {
    const runsHere = (id: string) => ctx.turns.run(id) !== undefined;
    return await forkOn(
      ctx.connection,
      { threadRef: threadId, name, runsHere },
      ctx.signal,
      ctx.clock,
    );
  },
  explain(out) {
    if (out.status === "forked") {
      return {
        said: sentences(
          `Forked thread ${out.threadId} into ${out.newThreadId}${
            out.name ? ` (${out.name})` : ""
          }`,
          ...(out.notes ?? []),
        ),
        next: "Run in the new thread with codex_run (threadId: newThreadId).",
      };
    }
    return {
      said: sentences(`Not forked (${out.reason}): ${out.message}`),
      next: out.reason ? reasonNext(out.reason) : "Check the thread id.",
    };
  },
};
