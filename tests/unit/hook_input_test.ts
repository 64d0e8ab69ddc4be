/**
 * Protects: what `hook-wait` makes of Claude Code's hook input and transcript (src/cli/hook_input.ts,
 * issue 49): it waits only on a message a relay tool sent and whose turn had not ended, and tells
 * when the agent followed that run itself (then nothing is pushed).
 */
import assert from "assert";
import { followedInTranscript, hookPlan } from "../../src/cli/hook_input.ts";

const REF = { threadId: "t1", clientMessageId: "m1" };
const WAIT = { kind: "wait", ref: REF };

const input = (response: unknown, tool: unknown = "mcp__codex-relay__codex_run", extra = {}) => ({
  tool_name: tool,
  tool_response: typeof response === "string" ? response : JSON.stringify(response),
  ...extra,
});

const run = (turn: unknown, receipt: Record<string, unknown> = { status: "queued", ...REF }) => ({
  receipt,
  threadId: "t1",
  ...(turn === undefined ? {} : { turn }),
});

Deno.test("hookPlan: a codex_run or codex_review result waits unless its turn ended or nothing was sent", () => {
  assert.deepEqual(hookPlan(input(run({ id: "u", status: "running" }))), WAIT);
  assert.deepEqual(hookPlan(input(run(undefined))), WAIT, "no turn yet: wait");
  assert.deepEqual(hookPlan(input(run({ id: "u", status: 3 }))), WAIT);
  for (const status of ["completed", "failed", "interrupted"]) {
    assert.deepEqual(hookPlan(input(run({ id: "u", status }))), { kind: "skip", why: "final" });
  }
  for (const status of ["not_sent", "unknown", undefined]) {
    assert.deepEqual(hookPlan(input(run({ status: "running" }, { status, ...REF }))), {
      kind: "skip",
      why: "not_sent",
    });
  }
  const noRef = run({ status: "running" }, { status: "queued", threadId: "t1" });
  assert.deepEqual(hookPlan(input(noRef)), { kind: "skip", why: "not_a_result" });
  const numbered = run({ status: "running" }, {
    status: "queued",
    threadId: 1,
    clientMessageId: "m",
  });
  assert.deepEqual(hookPlan(input(numbered)), { kind: "skip", why: "not_a_result" });
});

Deno.test("hookPlan: the run's worktree and the session's transcript go with the wait", () => {
  const inTree = { ...run({ status: "running" }), worktree: { path: "/w/t", branch: "b" } };
  const transcript = { transcript_path: "/c/s.jsonl" };
  assert.deepEqual(hookPlan(input(inTree, "mcp__r__codex_run", transcript)), {
    ...WAIT,
    worktree: "/w/t",
    transcript: "/c/s.jsonl",
  });
  const odd = { ...run({ status: "running" }), worktree: { path: 7 } };
  assert.deepEqual(hookPlan(input(odd, "x", { transcript_path: 7 })), WAIT);
  assert.deepEqual(hookPlan(input({ ...run({}), worktree: "/w" })), WAIT);
});

Deno.test("hookPlan: a queue receipt waits when queued; a steer's when steered or unknown", () => {
  const receipt = (status: string) => ({ status, ...REF });
  const t = { transcript_path: "/c/s.jsonl" };
  assert.deepEqual(hookPlan(input(receipt("queued"), "mcp__codex-relay__codex_queue_message", t)), {
    ...WAIT,
    transcript: "/c/s.jsonl",
  });
  assert.deepEqual(hookPlan(input(receipt("not_sent"), "mcp__codex-relay__codex_queue_message")), {
    kind: "skip",
    why: "not_sent",
  });
  for (const status of ["steered", "unknown"]) {
    assert.deepEqual(hookPlan(input(receipt(status), "mcp__codex-relay__codex_steer")), WAIT);
    assert.deepEqual(hookPlan(input(receipt(status), "codex_steer")), WAIT, "no server prefix");
    // Not a steer: a status only a steer has sent nothing.
    assert.deepEqual(hookPlan(input(receipt(status), "mcp__codex-relay__codex_queue_message")), {
      kind: "skip",
      why: "not_sent",
    });
    assert.deepEqual(hookPlan(input(receipt(status), 5)), { kind: "skip", why: "not_sent" });
  }
  assert.deepEqual(hookPlan(input(receipt("queued"), "mcp__codex-relay__codex_steer")), {
    kind: "skip",
    why: "not_sent",
  });
  assert.deepEqual(hookPlan(input({ status: "queued", threadId: "t1" }, "codex_queue_message")), {
    kind: "skip",
    why: "not_a_result",
  });
});

Deno.test("hookPlan: the result as JSON text, an object, or a CallToolResult; anything else is not a result", () => {
  const result = run({ status: "running" });
  assert.deepEqual(hookPlan({ tool_response: result }), WAIT);
  assert.deepEqual(
    hookPlan({ tool_response: JSON.stringify({ structuredContent: result }) }),
    WAIT,
  );
  const notResult = { kind: "skip", why: "not_a_result" };
  for (
    const response of [
      undefined,
      "not json",
      "[]",
      "null",
      '"abc"',
      "5",
      JSON.stringify({ structuredContent: "x" }),
      JSON.stringify({ structuredContent: [result] }),
      [result],
    ]
  ) {
    assert.deepEqual(hookPlan({ tool_response: response }), notResult, JSON.stringify(response));
  }
  for (const hook of [null, "x", [input(result)]]) assert.deepEqual(hookPlan(hook), notResult);
});

const line = (o: unknown) => JSON.stringify(o);
const use = (id: unknown, name: unknown, input: unknown) =>
  line({ type: "assistant", message: { content: [{ type: "tool_use", id, name, input }] } });
const result = (id: unknown, content: unknown) =>
  line({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: id, content }] } });
const ended = { ...REF, timedOut: false, turn: { id: "u", status: "completed" } };
const WAIT_TOOL = "mcp__codex-relay__codex_wait_reply";

Deno.test("followedInTranscript: a relay result showing the end, as text or text blocks", () => {
  assert.equal(followedInTranscript(result("x", JSON.stringify(ended)), REF), true);
  const blocks = [
    { type: "text", text: JSON.stringify(ended).slice(0, 1) },
    null,
    { type: "image", text: "ignored" },
    { type: "text", text: JSON.stringify(ended).slice(1) },
  ];
  assert.equal(followedInTranscript(result("x", blocks), REF), true);
  const other = { ...ended, clientMessageId: "m2" };
  assert.equal(followedInTranscript(result("x", JSON.stringify(other)), REF), false);
  assert.equal(followedInTranscript(result("x", { text: JSON.stringify(ended) }), REF), false);
  assert.equal(followedInTranscript(result(7, JSON.stringify(ended)), REF), false, "no use id");
  const noise = ["", "{", "[]", line({ message: {} }), line({ message: { content: "x" } })];
  assert.equal(followedInTranscript([...noise, result("x", "not json")].join("\n"), REF), false);
  const late = [...noise, result("x", JSON.stringify(ended))].join("\n");
  assert.equal(followedInTranscript(late, REF), true, "malformed lines are passed over");
  const notTool = line({ message: { content: [null, { type: "text", text: "x" }] } });
  assert.equal(followedInTranscript(notTool, REF), false);
});

Deno.test("followedInTranscript: a codex_wait_reply on the message still open is followed; its result closes it", () => {
  assert.equal(followedInTranscript(use("w", WAIT_TOOL, REF), REF), true);
  assert.equal(followedInTranscript(use("w", WAIT_TOOL, { messages: [null, {}, REF] }), REF), true);
  assert.equal(followedInTranscript(use("w", WAIT_TOOL, { clientMessageId: "m2" }), REF), false);
  assert.equal(followedInTranscript(use("w", WAIT_TOOL, { messages: [] }), REF), false);
  assert.equal(followedInTranscript(use("w", WAIT_TOOL, undefined), REF), false);
  assert.equal(followedInTranscript(use("w", "mcp__r__codex_read_reply", REF), REF), false);
  assert.equal(followedInTranscript(use("w", 3, REF), REF), false);
  assert.equal(followedInTranscript(use(3, WAIT_TOOL, REF), REF), false, "no use id");
  const closed = [
    use("w", WAIT_TOOL, REF),
    result("w", JSON.stringify({ ...ended, timedOut: true })),
  ];
  assert.equal(followedInTranscript(closed.join("\n"), REF), false);
  const otherClosed = [use("w", WAIT_TOOL, REF), result("v", "{}")];
  assert.equal(followedInTranscript(otherClosed.join("\n"), REF), true);
});
