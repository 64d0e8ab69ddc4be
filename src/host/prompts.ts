/**
 * MCP prompts (slash commands for people, e.g. `/mcp__codex-relay__review` in
 * Claude Code): each registers at the level of the tools it asks the agent to
 * use, and each argument is described.
 * @module
 */

import { z } from "zod";
import type { Capabilities } from "../core/capabilities.ts";

/** A prompt: its arguments (strings, as MCP prompts take them) and the message it produces. */
export interface Prompt<A extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  args: A;
  /** Whether the prompt is offered at these capabilities (its tools' level). */
  enabled(caps: Capabilities): boolean;
  /** The user message the prompt produces. */
  text(args: z.output<z.ZodObject<A>>): string;
}

const reviewArgs = {
  cwd: z.string().describe("Absolute path of the repository to review on Codex's machine"),
  target: z.string().optional().describe(
    "uncommitted (default), base, commit or custom",
  ),
  detail: z.string().optional().describe(
    "The base branch (base), the commit sha (commit) or what to review (custom)",
  ),
};

const delegateArgs = {
  task: z.string().describe("What Codex should do, in your words"),
  cwd: z.string().describe("Absolute path of the directory Codex works in"),
};

const FOLLOW =
  "If the result says the turn is still running, call codex_wait_reply with its threadId and receipt.clientMessageId until it ends; answer Codex's approval requests as they come.";

/** The `review` prompt: Codex's code review, its findings presented. */
export const reviewPrompt: Prompt<typeof reviewArgs> = {
  name: "review",
  title: "Codex code review",
  description: "Has Codex review a repository's changes and presents its findings",
  args: reviewArgs,
  enabled: (caps) => caps.turnStart,
  text({ cwd, target, detail }) {
    const kind = target ?? "uncommitted";
    const extra = kind === "base"
      ? `, base: ${JSON.stringify(detail ?? "main")}`
      : kind === "commit"
      ? `, commit: ${JSON.stringify(detail ?? "")}`
      : kind === "custom"
      ? `, instructions: ${JSON.stringify(detail ?? "")}`
      : "";
    return [
      `Call the codex_review tool with cwd: ${JSON.stringify(cwd)}, target: ${
        JSON.stringify(kind)
      }${extra}.`,
      FOLLOW,
      "Then present the review: its findings ordered by priority (P0 first), each with its title, file and line range, and body; then the review's overall text. If its verdict is failed, say the review failed and why (never that it found nothing).",
    ].join(" ");
  },
};

/** The `delegate` prompt: a task handed to Codex, its answer reported. */
export const delegatePrompt: Prompt<typeof delegateArgs> = {
  name: "delegate",
  title: "Delegate to Codex",
  description: "Hands a task to Codex in a directory and reports its answer",
  args: delegateArgs,
  enabled: (caps) => caps.turnStart,
  text({ task, cwd }) {
    return [
      `Call the codex_run tool with cwd: ${JSON.stringify(cwd)} and this text: ${
        JSON.stringify(task)
      }.`,
      FOLLOW,
      "Then report what Codex answered and did, in a few sentences.",
    ].join(" ");
  },
};

/** Every prompt. */
export const PROMPTS: readonly Prompt<z.ZodRawShape>[] = [
  reviewPrompt,
  delegatePrompt,
] as unknown as readonly Prompt<z.ZodRawShape>[];
