/**
 * `codex_usage` (turn-start level): the account's rate-limit windows and a
 * thread's estimated cost, to decide before delegating (`src/ops/codex_usage.ts`).
 * @module
 */

import { z } from "zod";
import { threadRef } from "../../reply/inputs.ts";
import { codexUsage } from "../../ops/codex_usage.ts";
import { codexUsageOutput, type CodexUsageResult } from "../../reply/schemas.ts";
import { asRelayError } from "../../core/errors.ts";
import { READ_ANNOTATIONS, type Tool } from "../tool.ts";
import { sentences } from "../text.ts";
import { reasonNext } from "../next_steps.ts";

const input = z.strictObject({
  threadId: threadRef.optional(),
});

type Window = NonNullable<CodexUsageResult["primary"]>;

function windowText(name: string, w: Window | null | undefined): string {
  if (!w) return `${name}: none`;
  const reset = w.resetsAt ? `, resets ${w.resetsAt}` : "";
  return `${name}: ${w.usedPercent}% used${reset}`;
}

/** The `codex_usage` tool. */
export const usageTool: Tool<typeof input, typeof codexUsageOutput> = {
  name: "codex_usage",
  title: "Codex limits and cost",
  description:
    "Codex's rate limits (primary: 5-hour, secondary: weekly window: usedPercent, resetsAt) and a thread's estimated cost. An API-key login: unavailable.",
  inputSchema: input,
  outputSchema: codexUsageOutput,
  annotations: READ_ANNOTATIONS,
  enabled: (caps) => caps.turnStart,
  async run({ threadId }, ctx): Promise<CodexUsageResult> {
    try {
      return await ctx.connection.operation((s) => codexUsage(s, threadId), {
        signal: ctx.signal,
        label: "usage",
      });
    } catch (error) {
      const e = asRelayError(error);
      return { status: "unavailable", reason: e.reason, message: e.message };
    }
  },
  explain(out) {
    const cost = out.thread
      ? out.thread.status === "available"
        ? `Thread ${out.thread.threadId}: estimated ${out.thread.estimatedUsd ?? "unknown"} USD, ${
          out.thread.estimatedCredits ?? "unknown"
        } credits`
        : `Thread ${out.thread.threadId}: cost unavailable (${out.thread.reason}): ${out.thread.message}`
      : "";
    if (out.status === "available") {
      return {
        said: sentences(
          `Limits (${out.planType ?? "plan unknown"}): ${windowText("primary", out.primary)}; ${
            windowText("secondary", out.secondary)
          }`,
          cost,
        ),
        next: "A window at 100% refuses runs until its reset.",
      };
    }
    return {
      said: sentences(`Limits unavailable (${out.reason}): ${out.message}`, cost),
      next: out.reason ? reasonNext(out.reason) : "",
    };
  },
};
