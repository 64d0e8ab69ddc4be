/**
 * Pure parts of `hook-wait`: what Claude Code's `PostToolUse` hook input says
 * about the call it followed ({@linkcode hookPlan}), and whether the session's
 * transcript shows that the agent followed the run itself
 * ({@linkcode followedInTranscript}).
 * @module
 */

import { asObject, endsShown, TERMINAL } from "../host/push_text.ts";

/** The message a hook waits on. */
export interface HookRef {
  threadId: string;
  clientMessageId: string;
}

/** What the hook does for one tool call. */
export type HookPlan =
  /** Nothing to wait for: the result was final already, nothing was sent, or not a relay result. */
  | { kind: "skip"; why: "final" | "not_sent" | "not_a_result" }
  /** Wait for the message's turn (`worktree`: the folder the run works in, when it has one). */
  | { kind: "wait"; ref: HookRef; worktree?: string; transcript?: string };

/** The tools after which the hook runs. */
export const HOOKED_TOOLS = [
  "codex_run",
  "codex_review",
  "codex_queue_message",
  "codex_steer",
] as const;

/**
 * What to do for the hook input `input` (Claude Code's JSON on stdin):
 * `tool_response` is the JSON string of the tool's `structuredContent` (an
 * object or a CallToolResult are taken too).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const response = JSON.stringify({
 *   receipt: { status: "queued", threadId: "t1", clientMessageId: "m1" },
 *   threadId: "t1", turn: { id: "u1", status: "running" },
 * });
 * assert.deepEqual(hookPlan({ tool_name: "mcp__codex-relay__codex_run", tool_response: response }), {
 *   kind: "wait", ref: { threadId: "t1", clientMessageId: "m1" },
 * });
 * ```
 */
export function hookPlan(input: unknown): HookPlan {
  const hook = asObject(input) ?? {};
  const result = structured(hook.tool_response);
  if (!result) return { kind: "skip", why: "not_a_result" };
  const transcript = typeof hook.transcript_path === "string" ? hook.transcript_path : undefined;
  const extra = transcript === undefined ? {} : { transcript };
  // Stryker disable next-line Regex,StringLiteral: `.*` matches from the start anyway; a tool not named is not codex_steer, whatever it is called
  const tool = typeof hook.tool_name === "string" ? hook.tool_name.replace(/^.*__/, "") : "";
  const receipt = asObject(result.receipt);
  if (receipt) {
    // codex_run, codex_review: the receipt names the message; the turn says whether it ended.
    const ref = refOf(receipt);
    if (!ref) return { kind: "skip", why: "not_a_result" };
    if (receipt.status !== "queued") return { kind: "skip", why: "not_sent" };
    if (TERMINAL.has(asObject(result.turn)?.status)) return { kind: "skip", why: "final" };
    const worktree = asObject(result.worktree)?.path;
    return { kind: "wait", ref, ...(typeof worktree === "string" ? { worktree } : {}), ...extra };
  }
  const ref = refOf(result);
  if (!ref) return { kind: "skip", why: "not_a_result" };
  const sent = tool === "codex_steer"
    ? result.status === "steered" || result.status === "unknown"
    : result.status === "queued";
  return sent ? { kind: "wait", ref, ...extra } : { kind: "skip", why: "not_sent" };
}

/**
 * Whether the transcript `text` (Claude Code's JSONL) shows that the agent
 * followed `ref` itself: a tool result of the relay that shows its turn ended
 * (`codex_wait_reply`, `codex_read_reply`, `codex_interrupt`), or a
 * `codex_wait_reply` on it that has no result yet (it returns the end).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const seen = JSON.stringify({ type: "user", message: { content: [{
 *   type: "tool_result", tool_use_id: "x",
 *   content: JSON.stringify({ threadId: "t1", clientMessageId: "m1", timedOut: false,
 *     turn: { id: "u1", status: "completed" } }),
 * }] } });
 * assert.equal(followedInTranscript(seen, { threadId: "t1", clientMessageId: "m1" }), true);
 * assert.equal(followedInTranscript("", { threadId: "t1", clientMessageId: "m1" }), false);
 * ```
 */
export function followedInTranscript(text: string, ref: HookRef): boolean {
  const waiting = new Set<string>();
  for (const line of text.split("\n")) {
    const content = asObject(asObject(parse(line))?.message)?.content;
    if (!Array.isArray(content)) continue;
    for (const block of content.map(asObject)) {
      if (block?.type === "tool_use" && typeof block.id === "string") {
        const name = block.name;
        const wait = typeof name === "string" && name.endsWith("__codex_wait_reply");
        if (wait && names(asObject(block.input), ref)) {
          waiting.add(block.id);
        }
      } else if (block?.type === "tool_result" && typeof block.tool_use_id === "string") {
        waiting.delete(block.tool_use_id);
        if (showsEnd(resultText(block.content), ref)) return true;
      }
    }
  }
  return waiting.size > 0;
}

/** Whether a tool call's arguments name `ref` (one message, or among `messages`). */
function names(input: Record<string, unknown> | undefined, ref: HookRef): boolean {
  if (!input) return false;
  const list = Array.isArray(input.messages) ? input.messages.map(asObject) : [input];
  return list.some((m) => m?.clientMessageId === ref.clientMessageId);
}

/** Whether a tool result's text is a relay result that shows `ref`'s turn ended. */
function showsEnd(text: string | undefined, ref: HookRef): boolean {
  // Stryker disable next-line ConditionalExpression: parse(undefined) is undefined too (JSON.parse throws, caught)
  return text !== undefined && endsShown(parse(text)).includes(ref.clientMessageId);
}

/** A tool result's text: a string, or the text blocks of an array. */
function resultText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  return content.map(asObject).filter((b) => b?.type === "text").map((b) => b!.text).join("");
}

/** The structured result in a hook's `tool_response`. */
function structured(response: unknown): Record<string, unknown> | undefined {
  const value = typeof response === "string" ? parse(response) : response;
  const object = asObject(value);
  if (object && "structuredContent" in object) return asObject(object.structuredContent);
  return object;
}

function refOf(o: Record<string, unknown>): HookRef | undefined {
  const { threadId, clientMessageId } = o;
  return typeof threadId === "string" && typeof clientMessageId === "string"
    ? { threadId, clientMessageId }
    : undefined;
}

function parse(text: string): unknown {
  try {
    // Stryker disable BlockStatement: the catch block below: a function that ends returns undefined, as it does
    return JSON.parse(text);
  } catch {
    // Stryker restore BlockStatement
    return undefined;
  }
}
