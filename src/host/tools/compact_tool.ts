/**
 * `codex_compact` (turn-start level): Codex compacts an idle thread's context
 * (`thread/compact/start`) in a turn of its own, run and followed like a
 * `codex_run` (one run per thread; `codex_interrupt` stops it).
 * @module
 */

import { z } from "zod";
import { threadRef } from "../../reply/inputs.ts";
import { compactOutput, type RunResult } from "../../reply/schemas.ts";
import { type Tool, type ToolInputRequired, TURN_ANNOTATIONS } from "../tool.ts";
import { explainRun, runCall } from "./run_tool.ts";

const input = z.strictObject({
  threadId: threadRef,
  waitSeconds: z.number().int().min(1).max(55).default(45).describe(
    "Seconds to wait for its end (1..55)",
  ),
});

/** The `codex_compact` tool. */
export const compactTool: Tool<typeof input, typeof compactOutput> = {
  name: "codex_compact",
  title: "Compact a thread",
  description:
    "Has Codex compact an idle thread's context (history summarised) in a run of its own, followed like codex_run; codex_interrupt stops it.",
  inputSchema: input,
  outputSchema: compactOutput,
  annotations: TURN_ANNOTATIONS,
  enabled: (caps) => caps.turnStart,
  async run(args, ctx): Promise<RunResult | ToolInputRequired> {
    return await runCall(
      "codex_compact",
      args,
      ctx,
      () => ctx.starts.compact(args.threadId, ctx.signal),
    );
  },
  explain: explainRun,
};
