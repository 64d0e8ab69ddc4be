/**
 * Input shapes shared by operations and tools: thread ids and names, message text bounds.
 * @module
 */

import { z } from "zod";
import { MAX_CURSOR_TEXT_CHARS } from "./cursor.ts";

/** Message text bound in UTF-8 bytes. */
export const MAX_TEXT_BYTES = 16 * 1024;

/** `codex_review`'s `base` and `commit` bound in UTF-8 bytes. */
export const MAX_REF_BYTES = 256;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Whether `s` is a canonical UUID (any version). */
export function isUuid(s: string): boolean {
  return UUID.test(s);
}

/**
 * The canonical form of a thread reference: a UUID in lowercase (as Codex
 * reports thread ids, so one thread has one key in every map and wait), a
 * name unchanged.
 */
export function canonicalRef(s: string): string {
  return isUuid(s) ? s.toLowerCase() : s;
}

const encoder = new TextEncoder();

/** The UTF-8 length of a well-formed string. */
export function utf8Length(s: string): number {
  return encoder.encode(s).length;
}

/**
 * What is wrong with `s` as text for Codex (`what` names it in the message),
 * or `undefined`: empty, a lone surrogate, a NUL, or more than `maxBytes` of
 * UTF-8. The one rule of message text and of every free text a run sends
 * (`codex_review`'s `instructions`, `base`, `commit`).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(textIssue("a\0b", "The text", 16384), "The text contains a NUL character");
 * assert.equal(textIssue("ok", "The text", 16384), undefined);
 * ```
 */
export function textIssue(s: string, what: string, maxBytes: number): string | undefined {
  if (s.length === 0) return `${what} is empty`;
  if (!s.isWellFormed()) return `${what} has a lone surrogate: it is not valid UTF-8`;
  if (s.includes("\0")) return `${what} contains a NUL character`;
  const bytes = utf8Length(s);
  if (bytes > maxBytes) return `${what} is ${bytes} bytes of UTF-8; the limit is ${maxBytes}`;
  return undefined;
}

/**
 * A zod string that refuses what {@link textIssue} refuses.
 *
 * @example
 * ```ts
 * const instructions = cleanText("The instructions", 16384);
 * import assert from "assert";
 * assert.equal(instructions.safeParse("\ud800").success, false);
 * ```
 */
export function cleanText(what: string, maxBytes: number): z.ZodString {
  return z.string().superRefine((s, ctx) => {
    const issue = textIssue(s, what, maxBytes);
    if (issue !== undefined) ctx.addIssue({ code: "custom", message: issue });
  });
}

/** Message text: 1..16 KiB of well-formed UTF-8, no NUL. */
export const messageText: z.ZodString = cleanText("The text", MAX_TEXT_BYTES).describe(
  "The message for Codex (up to 16 KiB of UTF-8)",
);

/** What a `threadId` input takes, said once for every tool. */
export const THREAD_REF_DESCRIPTION = "The thread's UUID or exact name if unique";

/** A thread id (UUID) or an exact thread name, without a description (for list items). */
export const threadRefItem: z.ZodString = z.string().min(1).max(256).superRefine((s, ctx) => {
  // deno-lint-ignore no-control-regex
  if (!s.isWellFormed() || /[\u0000-\u001f\u007f]/.test(s)) {
    ctx.addIssue({
      code: "custom",
      message: "The thread id or name has control or invalid characters",
    });
  }
});

/** A thread id (UUID) or an exact thread name. */
export const threadRef: z.ZodString = threadRefItem.describe(THREAD_REF_DESCRIPTION);

/** A thread id (UUID only). */
export const threadId = z.string().regex(UUID, "Give the thread's id (a UUID)");

/** Longest `clientMessageId`, in UTF-16 code units (as cursors carry it). */
export const MAX_CLIENT_MESSAGE_ID_CHARS = 200;

/** A `clientMessageId` without a description (for list items). */
export const clientMessageIdItem: z.ZodString = z.string().min(1).max(MAX_CLIENT_MESSAGE_ID_CHARS)
  .superRefine(
    (s, ctx) => {
      if (/\p{Cc}/u.test(s) || !s.isWellFormed()) {
        ctx.addIssue({
          code: "custom",
          message: "The clientMessageId has control or invalid characters",
        });
      }
    },
  );

/** A `clientMessageId`: 1..200 characters, no control characters, no lone surrogates. */
export const clientMessageId: z.ZodString = clientMessageIdItem.describe(
  "From the message's receipt",
);

/** A cursor of an earlier result. */
export const cursorInput: z.ZodString = z.string().min(1).max(MAX_CURSOR_TEXT_CHARS).describe(
  "An earlier nextCursor or searchCursor",
);

/** Codex sandbox modes, tightest first. */
export const SANDBOX_MODES = ["read-only", "workspace-write", "danger-full-access"] as const;

/** Codex approval policies, tightest (asks most) first. */
export const APPROVAL_POLICIES = ["untrusted", "on-request", "never"] as const;

/** The options a client may choose for a `codex_run` turn. */
export const runOptionShapes = {
  name: z.string().min(1).max(200).superRefine((s, ctx) => {
    if (/\p{Cc}/u.test(s) || !s.isWellFormed() || s.trim() !== s) {
      ctx.addIssue({
        code: "custom",
        message: "The name has control characters, lone surrogates or surrounding spaces",
      });
    }
  }).optional().describe("A name for the new thread (with cwd)"),
  model: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/, "Not a model name").optional()
    .describe("Model for this turn (default: the thread's)"),
  effort: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, "Not a reasoning effort").optional()
    .describe("Reasoning effort, e.g. low, medium, high"),
  sandbox: z.enum(SANDBOX_MODES).optional().describe(
    "Only tighter than the thread's sandbox",
  ),
  approvalPolicy: z.enum(APPROVAL_POLICIES).optional().describe(
    "Only stricter than the thread's (untrusted asks most)",
  ),
};

/** A sandbox mode. */
export type SandboxMode = typeof SANDBOX_MODES[number];
/** An approval policy. */
export type ApprovalPolicy = typeof APPROVAL_POLICIES[number];
