/**
 * The short text that tells an agent a run ended without its asking: what the
 * `hook-wait` command prints for Claude Code's `asyncRewake` hook and what a
 * `serve --channels` relay sends as `notifications/claude/channel`. Bounded
 * ({@linkcode PUSH_TEXT_MAX}): the status, the first lines of the final
 * answers (never commentary, a moderated one held back), usage, the
 * worktree and changed files where the run had them, and the next call.
 * @module
 */

import type { WaitMessageResult } from "../reply/schemas.ts";

/** The most characters a pushed text has. */
export const PUSH_TEXT_MAX = 2_000;
/** The most lines of final answers a pushed text quotes. */
export const PUSH_ANSWER_LINES = 12;

/** What a push tells: a message's wait result, and the worktree its run started with. */
export interface PushSubject {
  /** The run's end, as `codex_wait_reply` would return it. */
  result: WaitMessageResult;
  /** The worktree folder the run worked in, when it had one. */
  worktree?: string;
}

/**
 * The pushed text of `subject`, at most {@linkcode PUSH_TEXT_MAX} characters.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const text = pushText({
 *   result: {
 *     status: "observed", threadId: "t1", clientMessageId: "m1", timedOut: false,
 *     turn: { id: "u1", status: "completed" }, nextCursor: null, searchCursor: null,
 *     replies: [{ itemId: "i1", text: "Done: 3 tests fixed.", truncated: false }],
 *   },
 * });
 * assert.match(text, /^Codex run ended: completed/);
 * assert.match(text, /Done: 3 tests fixed\./);
 * ```
 */
export function pushText(subject: PushSubject): string {
  const r = subject.result;
  const status = r.turn?.status ?? r.status;
  const head = `Codex run ended: ${status} (thread ${r.threadId}, message ${r.clientMessageId}).`;
  const lines = [head, ...answerLines(r), ...detailLines(r, subject.worktree)];
  lines.push(`Next: ${nextCall(r)}`);
  return clip(lines.join("\n"), PUSH_TEXT_MAX);
}

/** The text of a wait that ended before the run did (the hook's bound). */
export function stillRunningText(
  ref: { threadId: string; clientMessageId: string },
  minutes: number,
): string {
  return `Codex run still running after ${minutes} min (thread ${ref.threadId}, message ${ref.clientMessageId}); nothing more will be pushed for it. Next: codex_wait_reply {"threadId":"${ref.threadId}","clientMessageId":"${ref.clientMessageId}"} when you need its answer.`;
}

/** The statuses of a turn that ended (any other value: it did not). */
export const TERMINAL: ReadonlySet<unknown> = new Set(["completed", "failed", "interrupted"]);

/**
 * The messages whose turn's end a relay result shows (a `codex_wait_reply`,
 * `codex_read_reply`, `codex_interrupt` or `codex_run` result, one message or
 * `messages`): what an agent that got `result` saw end.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const seen = { clientMessageId: "m1", timedOut: false, turn: { id: "u", status: "completed" } };
 * assert.deepEqual(endsShown(seen), ["m1"]);
 * assert.deepEqual(endsShown({ ...seen, timedOut: true }), []);
 * ```
 */
export function endsShown(result: unknown): string[] {
  const o = asObject(result);
  if (!o) return [];
  const list = Array.isArray(o.messages) ? o.messages.map(asObject) : [o];
  return list.flatMap((m) => {
    const id = m?.clientMessageId ?? asObject(m?.receipt)?.clientMessageId;
    const status = asObject(m?.turn)?.status;
    const ended = m?.timedOut !== true && TERMINAL.has(status);
    return ended && typeof id === "string" ? [id] : [];
  });
}

/**
 * `value` when it is a JSON object (a relay result, a hook's input, as
 * parsed), else undefined.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(asObject({ a: 1 }), { a: 1 });
 * assert.equal(asObject("{}"), undefined);
 * ```
 */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== "object") return undefined;
  // Stryker disable next-line ConditionalExpression: a JSON array holds only indexes, never a key read here
  if (Array.isArray(value)) return undefined;
  return (value ?? undefined) as Record<string, unknown> | undefined;
}

function answerLines(r: WaitMessageResult): string[] {
  const out: string[] = [];
  let held = 0;
  for (const reply of r.replies) {
    if ("moderated" in reply) {
      held++;
      continue;
    }
    out.push(...reply.text.split("\n"));
  }
  const shown = out.slice(0, PUSH_ANSWER_LINES);
  const more = out.length > shown.length || r.replies.some((x) => "truncated" in x && x.truncated);
  return [
    ...(shown.length ? ["Final answer (first lines):", ...shown] : []),
    ...(more ? ["[…]"] : []),
    ...(held ? [`${held} final answer(s) moderated by Codex: withheld.`] : []),
    ...(r.error ? [`Error: ${oneLine(r.error)}`] : []),
  ];
}

function detailLines(r: WaitMessageResult, worktree: string | undefined): string[] {
  const out: string[] = [];
  if (r.usage) {
    out.push(
      `Usage: ${r.usage.inputTokens} input, ${r.usage.outputTokens} output, ${r.usage.totalTokens} total tokens.`,
    );
  }
  if (worktree) out.push(`Worktree: ${worktree}`);
  const files = r.changedFiles ?? [];
  if (files.length) {
    const count = r.changedFilesCount ?? files.length;
    const named = files.slice(0, 10).map((f) => `${f.kind} ${f.path}`).join(", ");
    out.push(`Changed files (${count}): ${named}${count > 10 ? ", …" : ""}`);
  }
  return out;
}

function nextCall(r: WaitMessageResult): string {
  const ref = JSON.stringify({ threadId: r.threadId, clientMessageId: r.clientMessageId });
  return `codex_read_reply ${ref} for the whole answer.`;
}

function oneLine(s: string): string {
  return clip(s.replace(/\s+/g, " "), 300);
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
