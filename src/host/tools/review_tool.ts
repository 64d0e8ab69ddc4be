/**
 * `codex_review` (turn-start level): Codex's code review (`review/start`) on
 * a new read-only thread in `cwd` (no user thread touched) or inline on an
 * idle thread, followed like a `codex_run` (approvals and elicitations of the
 * reviewer come to the client); the result adds the review, parsed into
 * findings (`src/reply/review_text.ts`).
 * @module
 */

import { z } from "zod";
import {
  cleanText,
  MAX_REF_BYTES,
  MAX_TEXT_BYTES,
  runOptionShapes,
  threadRef,
} from "../../reply/inputs.ts";
import type { ReviewTarget } from "../../codex/methods.ts";
import { runOutput, type RunResult } from "../../reply/schemas.ts";
import type { Tool, ToolInputRequired } from "../tool.ts";
import { explainRun, runCall } from "./run_tool.ts";

const cwd = z.string().min(1).max(4096).regex(
  /^(\/|[A-Za-z]:[\\/])/,
  "cwd must be an absolute path",
)
  .refine((s) => !s.includes("\0") && s.isWellFormed(), "cwd is not a clean path");
/** A branch or commit: clean text (as message text) of up to 256 bytes, one line, no spaces around. */
const name = (what: string) =>
  cleanText(what, MAX_REF_BYTES).refine((s) => s.trim() === s && !/\p{Cc}/u.test(s), {
    message: `${what} has control characters or surrounding spaces`,
  });

const input = z.strictObject({
  cwd: cwd.optional().describe("Review this directory's repository on a new read-only thread"),
  threadId: threadRef.optional().describe(
    "Or inline on this idle thread (UUID or unique exact name)",
  ),
  target: z.enum(["uncommitted", "base", "commit", "custom"]).describe(
    "uncommitted changes, changes against base, one commit, or custom instructions",
  ),
  base: name("The base").optional().describe("The base branch (target base)"),
  commit: name("The commit").optional().describe("The commit sha (target commit)"),
  instructions: cleanText("The instructions", MAX_TEXT_BYTES).optional().describe(
    "What to review (target custom), up to 16 KiB of UTF-8 as message text",
  ),
  waitSeconds: z.number().int().min(1).max(55).default(45).describe(
    "Seconds to wait for the review's end (1..55)",
  ),
  model: runOptionShapes.model,
  effort: runOptionShapes.effort,
}).refine((v) => (v.threadId === undefined) !== (v.cwd === undefined), {
  message: "Give exactly one of cwd or threadId",
}).refine((v) => (v.base !== undefined) === (v.target === "base"), {
  message: "base goes with target base, and only with it",
}).refine((v) => (v.commit !== undefined) === (v.target === "commit"), {
  message: "commit goes with target commit, and only with it",
}).refine((v) => (v.instructions !== undefined) === (v.target === "custom"), {
  message: "instructions go with target custom, and only with it",
});

/** The `review/start` target of the tool's input. */
export function reviewTarget(
  v: { target: string; base?: string; commit?: string; instructions?: string },
): ReviewTarget {
  switch (v.target) {
    case "base":
      return { type: "baseBranch", branch: v.base! };
    case "commit":
      return { type: "commit", sha: v.commit! };
    case "custom":
      return { type: "custom", instructions: v.instructions! };
    default:
      return { type: "uncommittedChanges" };
  }
}

/** The `codex_review` tool. */
export const reviewTool: Tool<typeof input, typeof runOutput> = {
  name: "codex_review",
  title: "Code review",
  description:
    "Runs Codex's code review: on a new read-only thread in cwd, or inline on an idle thread. Returns the findings (priority, title, file, lines, body) and text; clientMessageId works with codex_wait_reply and codex_interrupt.",
  inputSchema: input,
  outputSchema: runOutput,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  enabled: (caps) => caps.turnStart,
  async run(args, ctx): Promise<RunResult | ToolInputRequired> {
    const where = args.threadId ? { threadId: args.threadId } : { cwd: args.cwd! };
    const options = { model: args.model, effort: args.effort };
    return await runCall(
      "codex_review",
      args,
      ctx,
      () => ctx.starts.review(where, reviewTarget(args), ctx.signal, options),
    );
  },
  explain: explainRun,
};
