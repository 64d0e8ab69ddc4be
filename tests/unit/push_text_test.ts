/**
 * Protects: what a push tells the agent (src/host/push_text.ts, issue 49): the status, the final
 * answers' first lines and nothing past them, a moderated answer counted and never shown, the
 * error on one line, usage, the worktree, the changed files, the next call, within 2,000
 * characters; and which relay results show a run's end (the agent saw it: no push).
 */
import assert from "assert";
import {
  endsShown,
  PUSH_ANSWER_LINES,
  PUSH_TEXT_MAX,
  pushText,
  stillRunningText,
} from "../../src/host/push_text.ts";
import type { WaitMessageResult } from "../../src/reply/schemas.ts";
import { USAGE_10_5 } from "../../testing/run_usage.ts";

const REF = { threadId: "t1", clientMessageId: "m1" };

function ended(extra: Partial<WaitMessageResult> = {}): WaitMessageResult {
  return {
    status: "observed",
    ...REF,
    turn: { id: "u1", status: "completed" },
    replies: [{ itemId: "i1", text: "Done.", truncated: false }],
    nextCursor: null,
    searchCursor: null,
    timedOut: false,
    ...extra,
  };
}

const NEXT =
  'Next: codex_read_reply {"threadId":"t1","clientMessageId":"m1"} for the whole answer.';

Deno.test("pushText: the status, the answer, the next call, line by line", () => {
  assert.equal(
    pushText({ result: ended() }),
    [
      "Codex run ended: completed (thread t1, message m1).",
      "Final answer (first lines):",
      "Done.",
      NEXT,
    ].join("\n"),
  );
  // Without a turn: the wait's own status.
  const gone = pushText({ result: ended({ status: "unavailable", turn: null, replies: [] }) });
  assert.equal(gone, `Codex run ended: unavailable (thread t1, message m1).\n${NEXT}`);
});

Deno.test("pushText: the first 12 lines of the final answers, then […]; a cut answer is said cut", () => {
  const lines = Array.from({ length: 20 }, (_, i) => `l${i}`);
  const two = [
    { itemId: "a", text: lines.slice(0, 6).join("\n"), truncated: false },
    { itemId: "b", text: lines.slice(6).join("\n"), truncated: false },
  ];
  const text = pushText({ result: ended({ replies: two }) });
  assert.equal(
    text,
    [
      "Codex run ended: completed (thread t1, message m1).",
      "Final answer (first lines):",
      ...lines.slice(0, PUSH_ANSWER_LINES),
      "[…]",
      NEXT,
    ].join("\n"),
  );
  const exact = lines.slice(0, PUSH_ANSWER_LINES).join("\n");
  const whole = pushText({
    result: ended({ replies: [{ itemId: "a", text: exact, truncated: false }] }),
  });
  assert.doesNotMatch(whole, /\[…\]/, "12 lines: all of it");
  const cut = pushText({
    result: ended({ replies: [{ itemId: "a", text: "x", truncated: true }] }),
  });
  assert.match(cut, /\nx\n\[…\]\n/);
});

Deno.test("pushText: a moderated answer counted, never shown; the error on one line, bounded", () => {
  const text = pushText({
    result: ended({
      turn: { id: "u1", status: "failed" },
      replies: [{ itemId: "a", moderated: true }, { itemId: "b", moderated: true }],
      error: `usage limit\n  reached:\t${"y".repeat(400)}`,
    }),
  });
  const [head, held, error, next] = text.split("\n");
  assert.equal(head, "Codex run ended: failed (thread t1, message m1).");
  assert.equal(held, "2 final answer(s) moderated by Codex: withheld.");
  assert.equal(error, `Error: ${`usage limit reached: ${"y".repeat(400)}`.slice(0, 299)}…`);
  assert.equal(error.length, "Error: ".length + 300);
  assert.equal(next, NEXT);
  const short = pushText({ result: ended({ replies: [], error: "boom" }) });
  assert.match(short, /\nError: boom\n/);
});

Deno.test("pushText: usage, the worktree, and the first 10 changed files of their count", () => {
  const usage = USAGE_10_5;
  const files = Array.from({ length: 11 }, (_, i) => ({ path: `f${i}.ts`, kind: "add" as const }));
  const text = pushText({
    result: ended({ replies: [], usage, changedFiles: files, changedFilesCount: 30 }),
    worktree: "/w/t",
  });
  const named = files.slice(0, 10).map((f) => `add ${f.path}`).join(", ");
  assert.deepEqual(text.split("\n").slice(1, -1), [
    "Usage: 10 input, 5 output, 15 total tokens.",
    "Worktree: /w/t",
    `Changed files (30): ${named}, …`,
  ]);
  const ten = pushText({ result: ended({ replies: [], changedFiles: files.slice(0, 10) }) });
  assert.match(ten, new RegExp(`\\nChanged files \\(10\\): ${named}\\n`));
  assert.doesNotMatch(pushText({ result: ended({ changedFiles: [] }) }), /Changed|Worktree|Usage/);
});

Deno.test("pushText: at most 2,000 characters, its end marked", () => {
  const text = pushText({
    result: ended({ replies: [{ itemId: "a", text: "z".repeat(5000), truncated: false }] }),
  });
  assert.equal(text.length, PUSH_TEXT_MAX);
  assert.ok(text.endsWith("z…"));
  const fits = "z".repeat(PUSH_TEXT_MAX - pushText({ result: ended() }).length + "Done.".length);
  const exact = pushText({
    result: ended({ replies: [{ itemId: "a", text: fits, truncated: false }] }),
  });
  assert.equal(exact.length, PUSH_TEXT_MAX);
  assert.ok(exact.endsWith(NEXT), "exactly at the bound: whole");
});

Deno.test("stillRunningText: the bound, the message and the call that gets its answer", () => {
  assert.equal(
    stillRunningText(REF, 30),
    'Codex run still running after 30 min (thread t1, message m1); nothing more will be pushed for it. Next: codex_wait_reply {"threadId":"t1","clientMessageId":"m1"} when you need its answer.',
  );
});

Deno.test("endsShown: the messages a result shows ended (one, or among messages; by receipt too)", () => {
  const end = (id: string, status: string, timedOut = false) => ({
    clientMessageId: id,
    timedOut,
    turn: { id: "u", status },
  });
  for (const status of ["completed", "failed", "interrupted"]) {
    assert.deepEqual(endsShown(end("m1", status)), ["m1"], status);
  }
  assert.deepEqual(endsShown(end("m1", "running")), []);
  assert.deepEqual(endsShown(end("m1", "completed", true)), [], "a timed-out wait shows no end");
  assert.deepEqual(endsShown({ ...end("m1", "completed"), timedOut: undefined }), ["m1"]);
  assert.deepEqual(
    endsShown({ messages: [end("a", "completed"), end("b", "running"), end("c", "failed")] }),
    ["a", "c"],
  );
  const run = { receipt: { clientMessageId: "r1" }, turn: { id: "u", status: "completed" } };
  assert.deepEqual(endsShown(run), ["r1"], "a codex_run result names it in its receipt");
  assert.deepEqual(endsShown({ turn: { status: "completed" } }), [], "no message named");
  assert.deepEqual(endsShown({ clientMessageId: 7, turn: { status: "completed" } }), []);
  assert.deepEqual(endsShown({ clientMessageId: "m", turn: { status: 1 } }), []);
  assert.deepEqual(endsShown({ clientMessageId: "m", turn: [] }), []);
  for (const none of [null, undefined, "x", 3, [end("m1", "completed")]]) {
    assert.deepEqual(endsShown(none), [], JSON.stringify(none));
  }
  assert.deepEqual(endsShown({ messages: [null, 3, end("a", "completed")] }), ["a"]);
});
