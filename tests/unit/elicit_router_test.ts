import assert from "assert";
import { ElicitationRouter } from "../../src/elicit/router.ts";
import { FakeRuntime } from "../../testing/fake_runtime.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { silentLogger } from "../../src/core/log.ts";
import { answerProblem } from "../../src/elicit/validate_answer.ts";
import { forwardOf } from "../../src/elicit/mappings.ts";
import { cancelledNote } from "../../src/elicit/refusals.ts";

const APPROVAL = {
  threadId: "t",
  turnId: "u",
  itemId: "call_1",
  command: "ls",
  cwd: "/w",
  availableDecisions: ["accept", "acceptForSession", "decline", "cancel"],
};

function router(clock = new ManualClock(), autoApproveMcpTools = false): ElicitationRouter {
  return new ElicitationRouter({ clock, log: silentLogger, autoApproveMcpTools });
}

Deno.test("ElicitationRouter gives two runtimes reusing a JSON-RPC id their own answers", () => {
  const r = router();
  const a = new FakeRuntime();
  const b = new FakeRuntime();
  r.receive(a, 0, "item/commandExecution/requestApproval", APPROVAL);
  r.receive(b, 0, "item/commandExecution/requestApproval", APPROVAL);
  const [ta] = r.pendingFor(a);
  const [tb] = r.pendingFor(b);
  assert.notEqual(ta.token, tb.token);
  assert.equal(
    r.answer(tb.token, b.id, { action: "accept", content: { decision: "acceptForSession" } }),
    "answered",
  );
  assert.equal(r.answer(ta.token, a.id, { action: "decline" }), "answered");
  assert.deepEqual(a.answers, [{ rpcId: 0, result: { decision: "decline" } }]);
  assert.deepEqual(b.answers, [{ rpcId: 0, result: { decision: "acceptForSession" } }]);
});

Deno.test("ElicitationRouter answers a token at most once (a replay is refused)", () => {
  const r = router();
  const a = new FakeRuntime();
  r.receive(a, 3, "item/fileChange/requestApproval", { threadId: "t", turnId: "u", itemId: "i" });
  const [p] = r.pendingFor(a);
  assert.equal(
    r.answer(p.token, a.id, { action: "accept", content: { decision: "accept" } }),
    "answered",
  );
  assert.equal(
    r.answer(p.token, a.id, { action: "accept", content: { decision: "accept" } }),
    "unknown_token",
  );
  assert.equal(a.answers.length, 1);
});

Deno.test("ElicitationRouter refuses an answer that names another runtime", () => {
  const r = router();
  const a = new FakeRuntime();
  const b = new FakeRuntime();
  r.receive(a, 1, "item/commandExecution/requestApproval", APPROVAL);
  const [p] = r.pendingFor(a);
  assert.equal(
    r.answer(p.token, b.id, { action: "accept", content: { decision: "accept" } }),
    "wrong_runtime",
  );
  assert.equal(a.answers.length + b.answers.length, 0);
  assert.equal(r.size, 1, "still pending for its own runtime");
});

Deno.test("ElicitationRouter: a runtime replaced while a request is pending still gets its answer", () => {
  const r = router();
  const old = new FakeRuntime();
  r.receive(old, 7, "item/commandExecution/requestApproval", APPROVAL);
  const [p] = r.pendingFor(old);
  const replacement = new FakeRuntime(); // A new runtime for the same thread.
  r.receive(replacement, 7, "item/commandExecution/requestApproval", APPROVAL);
  assert.equal(
    r.answer(p.token, old.id, { action: "accept", content: { decision: "accept" } }),
    "answered",
  );
  assert.deepEqual(old.answers, [{ rpcId: 7, result: { decision: "accept" } }]);
  assert.deepEqual(replacement.answers, []);
});

Deno.test("ElicitationRouter drops an answer for a runtime that is gone", () => {
  const r = router();
  const a = new FakeRuntime();
  r.receive(a, 1, "item/commandExecution/requestApproval", APPROVAL);
  const [p] = r.pendingFor(a);
  a.alive = false;
  assert.equal(
    r.answer(p.token, a.id, { action: "accept", content: { decision: "accept" } }),
    "gone",
  );
  assert.deepEqual(a.answers, []);
});

Deno.test("ElicitationRouter answers cancel itself at the 10-minute deadline", () => {
  const clock = new ManualClock();
  const r = router(clock);
  const a = new FakeRuntime();
  r.receive(a, 2, "mcpServer/elicitation/request", {
    threadId: "t",
    serverName: "s",
    mode: "form",
    message: "Colour?",
    requestedSchema: { type: "object", properties: { colour: { type: "string" } } },
  });
  r.receive(a, 3, "item/commandExecution/requestApproval", APPROVAL);
  assert.equal(a.human, true, "the stall watchdog pauses while a human is asked");
  clock.advance(10 * 60 * 1000 - 1);
  assert.deepEqual(a.answers, []);
  clock.advance(1);
  assert.deepEqual(a.answers, [
    { rpcId: 2, result: { action: "cancel", content: null, _meta: null } },
    { rpcId: 3, result: { decision: "cancel" } },
  ]);
  assert.equal(r.size, 0);
  assert.equal(a.human, false);
});

Deno.test("ElicitationRouter validates form answers against the requested schema", () => {
  const r = router();
  const a = new FakeRuntime();
  const schema = {
    type: "object",
    properties: { colour: { type: "string", enum: ["red", "blue"] }, sure: { type: "boolean" } },
    required: ["colour"],
  };
  r.receive(a, 0, "mcpServer/elicitation/request", {
    serverName: "s",
    mode: "form",
    message: "m",
    requestedSchema: schema,
  });
  r.receive(a, 1, "mcpServer/elicitation/request", {
    serverName: "s",
    mode: "form",
    message: "m",
    requestedSchema: schema,
  });
  const [p0, p1] = r.pendingFor(a);
  assert.equal(
    r.answer(p0.token, a.id, { action: "accept", content: { colour: "green" } }),
    "invalid",
  );
  assert.equal(
    r.answer(p1.token, a.id, { action: "accept", content: { colour: "red", sure: true } }),
    "answered",
  );
  assert.deepEqual(a.answers, [
    { rpcId: 0, result: { action: "decline", content: null, _meta: null } },
    { rpcId: 1, result: { action: "accept", content: { colour: "red", sure: true }, _meta: null } },
  ]);
});

Deno.test("ElicitationRouter: serverRequest/resolved retires a pending token", () => {
  const r = router();
  const a = new FakeRuntime();
  r.receive(a, 4, "item/commandExecution/requestApproval", APPROVAL);
  const [p] = r.pendingFor(a);
  r.resolved(a, 4);
  assert.equal(r.size, 0);
  assert.equal(
    r.answer(p.token, a.id, { action: "accept", content: { decision: "accept" } }),
    "unknown_token",
  );
  assert.deepEqual(a.answers, []);
});

Deno.test("ElicitationRouter answers unknown server methods with a JSON-RPC error", () => {
  const r = router();
  const a = new FakeRuntime();
  r.receive(a, 9, "item/tool/call", {});
  assert.equal(a.answers[0].error?.code, -32601);
  assert.equal(r.size, 0);
});

Deno.test("ElicitationRouter auto-accepts MCP tool-call approvals only when opted in", () => {
  const approval = {
    serverName: "s",
    mode: "form",
    message: "Allow?",
    requestedSchema: { type: "object", properties: {} },
    _meta: { codex_approval_kind: "mcp_tool_call", persist: ["session", "always"], tool_name: "t" },
  };
  const off = router();
  const a = new FakeRuntime();
  off.receive(a, 0, "mcpServer/elicitation/request", approval);
  assert.equal(off.size, 1, "the default never approves by itself");
  const on = router(new ManualClock(), true);
  const b = new FakeRuntime();
  on.receive(b, 0, "mcpServer/elicitation/request", approval);
  assert.deepEqual(b.answers, [{
    rpcId: 0,
    result: { action: "accept", content: null, _meta: null },
  }]);
  // Other elicitations are still asked.
  on.receive(b, 1, "item/commandExecution/requestApproval", APPROVAL);
  assert.equal(on.size, 1);
});

Deno.test("forwardOf() shows MCP tool-call approvals as a decision with the persist options Codex offers", () => {
  const f = forwardOf("mcpServer/elicitation/request", {
    serverName: "s",
    mode: "form",
    message: "Allow?",
    requestedSchema: { type: "object", properties: {} },
    _meta: {
      codex_approval_kind: "mcp_tool_call",
      persist: ["session"],
      tool_name: "t",
      tool_params: {},
    },
  });
  assert.equal(f.kind, "form");
  if (f.kind !== "form") return;
  const decision =
    (f.requestedSchema.properties as Record<string, { oneOf: { const: string }[] }>).decision;
  assert.deepEqual(decision.oneOf.map((o) => o.const), ["accept", "acceptForSession", "decline"]);
  assert.deepEqual(f.accept({ decision: "acceptForSession" }), {
    action: "accept",
    content: null,
    _meta: { persist: "session" },
  });
  assert.deepEqual(f.accept({ decision: "decline" }), {
    action: "decline",
    content: null,
    _meta: null,
  });
});

Deno.test("forwardOf() maps an execpolicy amendment decision back to Codex's object", () => {
  const amendment = { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch", "x"] } };
  const f = forwardOf("item/commandExecution/requestApproval", {
    ...APPROVAL,
    availableDecisions: ["accept", amendment, "cancel"],
  });
  if (f.kind !== "form") throw new Error("expected a form");
  assert.deepEqual(f.accept({ decision: "acceptWithExecpolicyAmendment" }), {
    decision: amendment,
  });
});

Deno.test("forwardOf() turns requestUserInput questions into a form and answers into Codex's shape", () => {
  const f = forwardOf("item/tool/requestUserInput", {
    threadId: "t",
    turnId: "u",
    itemId: "i",
    isBlocking: true,
    questions: [
      {
        id: "lang",
        header: "Language",
        question: "Which language?",
        options: [{ label: "Go", description: "" }],
      },
      { id: "name", header: "Name", question: "Project name?" },
    ],
  });
  if (f.kind !== "form") throw new Error("expected a form");
  assert.equal(
    answerProblem(f.requestedSchema, { lang: "Rust", name: "x" }),
    "lang must be one of Go",
  );
  assert.equal(answerProblem(f.requestedSchema, { lang: "Go", name: "x" }), undefined);
  assert.deepEqual(f.accept({ lang: "Go", name: "x" }), {
    answers: { lang: { answers: ["Go"] }, name: { answers: ["x"] } },
  });
});

Deno.test("answerProblem() refuses missing required fields, unknown fields and wrong types", () => {
  const schema = {
    type: "object",
    properties: {
      n: { type: "integer", minimum: 1, maximum: 3 },
      tags: { type: "array", items: { enum: ["a", "b"] }, maxItems: 2 },
    },
    required: ["n"],
  };
  assert.equal(answerProblem(schema, {}), "n is required");
  assert.equal(answerProblem(schema, { n: 2, extra: 1 }), "extra is not asked for");
  assert.equal(answerProblem(schema, { n: 2.5 }), "n must be an integer");
  assert.equal(answerProblem(schema, { n: 4 }), "n is above 3");
  assert.equal(answerProblem(schema, { n: 1, tags: ["a", "c"] }), "tags may only hold a, b");
  assert.equal(answerProblem(schema, { n: 1, tags: ["a", "b"] }), undefined);
});

Deno.test("ElicitationRouter: several pending requests answered in reverse order each get their own answer", () => {
  const r = router();
  const a = new FakeRuntime();
  const other = new FakeRuntime();
  r.receive(a, 7, "item/commandExecution/requestApproval", { ...APPROVAL, command: "first" });
  r.receive(other, 8, "item/commandExecution/requestApproval", APPROVAL);
  r.receive(a, 8, "item/fileChange/requestApproval", { threadId: "t", turnId: "u", itemId: "f" });
  r.receive(a, "s-9", "item/commandExecution/requestApproval", { ...APPROVAL, command: "third" });
  const pending = r.pendingFor(a);
  assert.deepEqual(pending.map((p) => p.method), [
    "item/commandExecution/requestApproval",
    "item/fileChange/requestApproval",
    "item/commandExecution/requestApproval",
  ]);
  const [first, second, third] = pending;
  assert.match(JSON.stringify(first.forward), /first/);
  assert.match(JSON.stringify(third.forward), /third/);
  assert.equal(
    r.answer(third.token, a.id, { action: "accept", content: { decision: "acceptForSession" } }),
    "answered",
  );
  assert.equal(r.answer(second.token, a.id, { action: "cancel" }), "answered");
  assert.equal(r.answer(first.token, a.id, { action: "decline" }), "answered");
  assert.deepEqual(a.answers, [
    { rpcId: "s-9", result: { decision: "acceptForSession" } },
    { rpcId: 8, result: { decision: "cancel" } },
    { rpcId: 7, result: { decision: "decline" } },
  ]);
  assert.deepEqual(other.answers, [], "the other runtime's request with id 8 is untouched");
  assert.equal(r.pendingFor(other).length, 1);
  assert.equal(r.size, 1);
});

Deno.test("ElicitationRouter: answering the newest of three leaves the two older ones pending", () => {
  const r = router();
  const a = new FakeRuntime();
  for (const id of [1, 2, 3]) {
    r.receive(a, id, "item/commandExecution/requestApproval", { ...APPROVAL, command: `c${id}` });
  }
  const [p1, p2, p3] = r.pendingFor(a);
  assert.equal(r.answer(p3.token, a.id, { action: "decline" }), "answered");
  assert.deepEqual(a.answers, [{ rpcId: 3, result: { decision: "decline" } }]);
  assert.deepEqual(r.pendingFor(a).map((p) => p.token), [p1.token, p2.token]);
  assert.equal(a.human, true, "still waiting on a human");
  assert.equal(r.decline(p2.token, "test"), true);
  assert.deepEqual(a.answers.at(-1), { rpcId: 2, result: { decision: "decline" } });
  assert.equal(
    r.answer(p1.token, a.id, { action: "accept", content: { decision: "accept" } }),
    "answered",
  );
  assert.deepEqual(a.answers.at(-1), { rpcId: 1, result: { decision: "accept" } });
  assert.equal(a.human, false);
});

Deno.test("ElicitationRouter reports a cancelled request with what it asked and who cancelled it (issue 32)", () => {
  const clock = new ManualClock();
  const r = router(clock);
  const a = new FakeRuntime();
  r.receive(a, 1, "item/commandExecution/requestApproval", APPROVAL);
  r.receive(a, 2, "item/fileChange/requestApproval", { threadId: "t", turnId: "u", itemId: "i" });
  const [cmd] = r.pendingFor(a);
  assert.equal(r.answer(cmd.token, a.id, { action: "cancel" }), "answered");
  assert.deepEqual(a.cancelled.map((c) => [c.method, c.by]), [
    ["item/commandExecution/requestApproval", "client"],
  ]);
  assert.match(a.cancelled[0].summary, /Command: ls In: \/w/, "the command, on one line");
  clock.advance(10 * 60 * 1000);
  assert.deepEqual(a.cancelled.map((c) => [c.method, c.by]).at(-1), [
    "item/fileChange/requestApproval",
    "deadline",
  ]);
  const b = new FakeRuntime();
  r.receive(b, 3, "item/commandExecution/requestApproval", APPROVAL);
  assert.equal(r.answer(r.pendingFor(b)[0].token, b.id, { action: "decline" }), "answered");
  assert.deepEqual(b.cancelled, [], "a decline lets the turn go on: nothing to report");
});

Deno.test("cancelledNote names the kind of request, what it asked and who cancelled it", () => {
  const note = cancelledNote({
    method: "item/commandExecution/requestApproval",
    summary: "Codex asks to run a command. Command: rm -rf build",
    by: "client",
  });
  assert.match(
    note,
    /^Codex's command approval "Codex asks to run a command\. Command: rm -rf build"/,
  );
  assert.match(note, /the MCP client answered cancel/);
  assert.match(
    cancelledNote({
      method: "mcpServer/elicitation/request",
      summary: "[docs] ok?",
      by: "deadline",
    }),
    /MCP server request .* nobody answered it within 10 minutes/,
  );
});

Deno.test("ElicitationRouter names a cancelled request on one line of at most 300 characters", () => {
  const r = router();
  const a = new FakeRuntime();
  const command = `echo ${"x".repeat(200)}\necho ${"y".repeat(200)}`;
  r.receive(a, 1, "item/commandExecution/requestApproval", { ...APPROVAL, command });
  const [p] = r.pendingFor(a);
  assert.equal(r.answer(p.token, a.id, { action: "cancel" }), "answered");
  const { summary } = a.cancelled[0];
  assert.equal(summary.length, 300);
  assert.ok(!summary.includes("\n"), "one line");
  assert.match(summary, /echo x{200} echo y+$/, "the command, its newline a space, cut at 300");
});
