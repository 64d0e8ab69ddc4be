import assert from "assert";
import { ElicitationRouter } from "../../src/elicit/router.ts";
import { FakeRuntime } from "../../testing/fake_runtime.ts";
import {
  applyAnswers,
  askable,
  inputRound,
  MAX_ROUNDS_PER_CALL,
  type RoundState,
} from "../../src/host/input_rounds.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { silentLogger } from "../../src/core/log.ts";

const CMD = "item/commandExecution/requestApproval";
const MCP = "mcpServer/elicitation/request";
const APPROVAL = { command: "ls", cwd: "/w" };
const URL_REQ = { serverName: "s", mode: "url", message: "Log in", url: "https://login" };
const FORM_REQ = {
  serverName: "s",
  mode: "form",
  message: "Colour?",
  requestedSchema: { type: "object", properties: { c: { type: "string" } }, required: ["c"] },
};

function setup(clock = new ManualClock(), autoApproveMcpTools?: boolean) {
  const router = new ElicitationRouter({ clock, log: silentLogger, autoApproveMcpTools });
  return { clock, router, a: new FakeRuntime(), b: new FakeRuntime() };
}

function state(runtimeId: string, tokens: string[]): RoundState {
  return {
    v: 1,
    tool: "codex_run",
    runIds: tokens.map(() => runtimeId),
    threadId: "t",
    clientMessageId: "c",
    tokens,
    round: 1,
    waitSeconds: 30,
  };
}

Deno.test("input rounds: one call returns at most 9 rounds (clients stop at 10)", () => {
  assert.equal(MAX_ROUNDS_PER_CALL, 9);
});

Deno.test("askable: forms need form support, urls need url support; the rest is declined to Codex", () => {
  const { router, a } = setup();
  router.receive(a, 1, CMD, APPROVAL);
  router.receive(a, 2, MCP, URL_REQ);
  const pending = router.pendingFor(a);
  assert.deepEqual(askable(router, pending, { form: true, url: true }), pending);
  assert.deepEqual(a.answers, []);
  assert.deepEqual(askable(router, pending, { form: true, url: false }), [pending[0]]);
  assert.deepEqual(a.answers, [{
    rpcId: 2,
    result: { action: "decline", content: null, _meta: null },
  }]);
  assert.deepEqual(askable(router, router.pendingFor(a), { form: false, url: true }), []);
  assert.deepEqual(a.answers.at(-1), { rpcId: 1, result: { decision: "decline" } });
  assert.equal(router.size, 0);
});

Deno.test("inputRound: one input request per pending request, keyed by token, with the sealed state", () => {
  const { router, a } = setup();
  router.receive(a, 1, CMD, APPROVAL);
  router.receive(a, 2, MCP, URL_REQ);
  const [p1, p2] = router.pendingFor(a);
  const round = inputRound(router, [p1, p2], "SEALED");
  assert.deepEqual(JSON.parse(JSON.stringify(round)), {
    resultType: "input_required",
    requestState: "SEALED",
    inputRequests: {
      [p1.token]: {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Codex asks to run a command.\nCommand: ls\nIn: /w",
          requestedSchema: (p1.forward as { requestedSchema: unknown }).requestedSchema,
        },
      },
      [p2.token]: {
        method: "elicitation/create",
        params: { mode: "url", message: "[s] Log in", url: "https://login" },
      },
    },
  });
  assert.equal(inputRound(router, [], "S"), undefined, "nothing to ask: no round");
});

Deno.test("applyAnswers: each token gets its own answer; a token without one is declined", () => {
  const { router, a } = setup();
  router.receive(a, 1, CMD, APPROVAL);
  router.receive(a, 2, MCP, FORM_REQ);
  router.receive(a, 3, CMD, APPROVAL);
  const [p1, p2, p3] = router.pendingFor(a);
  const outcomes = applyAnswers(router, state(a.id, [p1.token, p2.token, p3.token]), {
    [p2.token]: { action: "accept", content: { c: "red" } },
    [p1.token]: { action: "cancel" },
  });
  assert.deepEqual(outcomes, ["answered", "answered", "declined"]);
  assert.deepEqual(a.answers, [
    { rpcId: 1, result: { decision: "cancel" } },
    { rpcId: 2, result: { action: "accept", content: { c: "red" }, _meta: null } },
    { rpcId: 3, result: { decision: "decline" } },
  ]);
  assert.deepEqual(applyAnswers(router, state(a.id, [p1.token]), {}), ["unknown_token"]);
  assert.equal(a.answers.length, 3, "a replay writes nothing");
});

Deno.test("applyAnswers: one round of a wait on several turns answers each token into its own turn", () => {
  const { router, a, b } = setup();
  // Both Codex processes number their requests from 0: only the runtime tells them apart.
  router.receive(a, 0, CMD, APPROVAL);
  router.receive(b, 0, CMD, { command: "rm x", cwd: "/w" });
  const [pa] = router.pendingFor(a);
  const [pb] = router.pendingFor(b);
  const many = { ...state(a.id, [pb.token, pa.token]), runIds: [b.id, a.id] };
  const outcomes = applyAnswers(router, many, {
    [pa.token]: { action: "accept", content: { decision: "accept" } },
    [pb.token]: { action: "decline" },
  });
  assert.deepEqual(outcomes, ["answered", "answered"]);
  assert.deepEqual(a.answers, [{ rpcId: 0, result: { decision: "accept" } }]);
  assert.deepEqual(b.answers, [{ rpcId: 0, result: { decision: "decline" } }]);
  assert.equal(router.size, 0);
});

Deno.test("applyAnswers: a state naming another runtime answers nothing", () => {
  const { router, a, b } = setup();
  router.receive(a, 1, CMD, APPROVAL);
  const [p] = router.pendingFor(a);
  const outcomes = applyAnswers(router, state(b.id, [p.token]), {
    [p.token]: { action: "accept", content: { decision: "accept" } },
  });
  assert.deepEqual(outcomes, ["wrong_runtime"]);
  assert.deepEqual(a.answers, []);
  assert.equal(router.size, 1);
});

Deno.test("router: url answers, declines and cancels go back as MCP elicitation results", () => {
  const { router, a } = setup();
  for (const id of [1, 2, 3]) router.receive(a, id, MCP, URL_REQ);
  const [p1, p2, p3] = router.pendingFor(a);
  assert.equal(router.answer(p1.token, a.id, { action: "accept" }), "answered");
  assert.equal(router.answer(p2.token, a.id, { action: "decline" }), "answered");
  assert.equal(router.answer(p3.token, a.id, { action: "cancel" }), "answered");
  assert.deepEqual(a.answers.map((x) => [x.rpcId, x.result]), [
    [1, { action: "accept", content: null, _meta: null }],
    [2, { action: "decline", content: null, _meta: null }],
    [3, { action: "cancel", content: null, _meta: null }],
  ]);
});

Deno.test("router: an accepted form without content is checked as an empty answer", () => {
  const { router, a } = setup();
  router.receive(a, 1, MCP, FORM_REQ);
  router.receive(a, 2, MCP, { ...FORM_REQ, requestedSchema: { type: "object", properties: {} } });
  const [p1, p2] = router.pendingFor(a);
  assert.equal(router.answer(p1.token, a.id, { action: "accept" }), "invalid");
  assert.equal(router.answer(p2.token, a.id, { action: "accept" }), "answered");
  assert.deepEqual(a.answers.map((x) => x.result), [
    { action: "decline", content: null, _meta: null },
    { action: "accept", content: {}, _meta: null },
  ]);
});

Deno.test("router: a request it cannot forward is declined at once; odd params are tolerated", () => {
  const { router, a } = setup();
  router.receive(a, 1, "item/tool/requestUserInput", { questions: [] });
  router.receive(a, 2, MCP, null);
  router.receive(a, 3, MCP, "text");
  assert.deepEqual(a.answers, [
    { rpcId: 1, result: { answers: {} } },
    { rpcId: 2, result: { action: "decline", content: null, _meta: null } },
    { rpcId: 3, result: { action: "decline", content: null, _meta: null } },
  ]);
  assert.equal(router.size, 0);
  router.receive(a, 4, "item/tool/call", {});
  assert.deepEqual(a.answers.at(-1), {
    rpcId: 4,
    error: { code: -32601, message: "codex-relay does not handle item/tool/call" },
  });
});

Deno.test("router: auto-approval applies only to MCP tool-call approvals, and only when opted in", () => {
  const meta = { _meta: { codex_approval_kind: "mcp_tool_call" }, message: "Run?" };
  const on = setup(new ManualClock(), true);
  on.router.receive(on.a, 1, MCP, meta);
  assert.deepEqual(on.a.answers, [{
    rpcId: 1,
    result: { action: "accept", content: null, _meta: null },
  }]);
  on.router.receive(on.a, 2, MCP, {
    ...meta,
    _meta: { codex_approval_kind: "other" },
    ...FORM_REQ,
  });
  on.router.receive(on.a, 3, CMD, { ...APPROVAL, ...meta });
  assert.equal(on.router.size, 2, "other requests still ask the client");
  const off = setup();
  off.router.receive(off.a, 1, MCP, meta);
  assert.deepEqual(off.a.answers, []);
  assert.equal(off.router.size, 1);
});

Deno.test("router: pending entries carry method, forward and a one-line summary of at most 200 characters", () => {
  const { router, a } = setup();
  router.receive(a, 1, MCP, { ...FORM_REQ, message: `${"m".repeat(300)}\nsecond line` });
  router.receive(a, 2, MCP, { ...FORM_REQ, message: "short" });
  const [p, q] = router.pendingFor(a);
  assert.equal(p.method, MCP);
  assert.equal(p.summary, `[s] ${"m".repeat(196)}`);
  assert.equal(q.summary, "[s] short");
  assert.equal(p.forward.kind, "form");
  assert.match(p.token, /^[A-Za-z0-9_-]{24}$/, "an opaque base64url token");
  assert.deepEqual(Object.keys(p).sort(), ["forward", "method", "summary", "token"]);
});

Deno.test("router: tokens are base64url (no + or /) across many requests", () => {
  const { router, a } = setup();
  for (let i = 0; i < 300; i++) router.receive(a, i, CMD, APPROVAL);
  const tokens = router.pendingFor(a).map((p) => p.token);
  assert.equal(new Set(tokens).size, 300);
  assert.ok(tokens.every((t) => /^[A-Za-z0-9_-]{24}$/.test(t)));
  assert.ok(tokens.some((t) => t.includes("-")) && tokens.some((t) => t.includes("_")));
});

Deno.test("router: declineAll(runtime) declines only that runtime's requests; declineAll() declines all", () => {
  const { router, a, b } = setup();
  router.receive(a, 1, CMD, APPROVAL);
  router.receive(b, 1, CMD, APPROVAL);
  router.receive(a, 2, MCP, FORM_REQ);
  router.declineAll(a, "closing");
  assert.deepEqual(a.answers, [
    { rpcId: 1, result: { decision: "decline" } },
    { rpcId: 2, result: { action: "decline", content: null, _meta: null } },
  ]);
  assert.deepEqual(b.answers, []);
  assert.equal(router.pendingFor(b).length, 1);
  assert.equal(a.human, false);
  assert.equal(b.human, true);
  router.declineAll(undefined, "shutdown");
  assert.deepEqual(b.answers, [{ rpcId: 1, result: { decision: "decline" } }]);
  assert.equal(router.size, 0);
  assert.equal(b.human, false);
});

Deno.test("router: decline() of a gone runtime writes nothing; of an unknown token is false", () => {
  const { router, a } = setup();
  router.receive(a, 1, CMD, APPROVAL);
  const [p] = router.pendingFor(a);
  a.alive = false;
  assert.equal(router.decline(p.token, "x"), true);
  assert.deepEqual(a.answers, []);
  assert.equal(router.decline(p.token, "x"), false);
  assert.equal(router.decline("made-up", "x"), false);
});

Deno.test("router: forget(runtime) drops only its requests, writing nothing", () => {
  const { router, a, b } = setup();
  router.receive(a, 1, CMD, APPROVAL);
  router.receive(a, 2, CMD, APPROVAL);
  router.receive(b, 1, CMD, APPROVAL);
  router.forget(a);
  assert.equal(router.size, 1);
  assert.deepEqual(router.pendingFor(a), []);
  assert.equal(router.pendingFor(b).length, 1);
  assert.deepEqual([...a.answers, ...b.answers], []);
  assert.equal(a.human, false);
  assert.equal(b.human, true);
});

Deno.test("router: resolved() retires only the request with that runtime and id", () => {
  const { router, a, b } = setup();
  router.receive(a, 1, CMD, APPROVAL);
  router.receive(a, 2, CMD, APPROVAL);
  router.receive(b, 1, CMD, APPROVAL);
  router.resolved(b, 1);
  assert.deepEqual(router.pendingFor(b), []);
  assert.equal(router.pendingFor(a).length, 2);
  router.resolved(a, "2");
  assert.equal(router.pendingFor(a).length, 2, "the id must match exactly");
  router.resolved(a, 2);
  assert.equal(router.pendingFor(a).length, 1);
  assert.deepEqual([...a.answers, ...b.answers], [], "Codex was not answered again");
});

Deno.test("router: every change wakes the runtime's followers", () => {
  const { router, a } = setup();
  router.receive(a, 1, CMD, APPROVAL);
  assert.equal(a.changes, 1);
  const [p] = router.pendingFor(a);
  router.answer(p.token, a.id, { action: "decline" });
  assert.equal(a.changes, 2);
});

Deno.test("router: the deadline may be lowered but never raised past 10 minutes; an expired gone runtime gets nothing", () => {
  const clock = new ManualClock();
  const low = new ElicitationRouter({ clock, log: silentLogger, deadlineMs: 1000 });
  const high = new ElicitationRouter({ clock, log: silentLogger, deadlineMs: 60 * 60 * 1000 });
  const a = new FakeRuntime();
  const b = new FakeRuntime();
  const gone = new FakeRuntime();
  low.receive(a, 1, CMD, APPROVAL);
  high.receive(b, 1, CMD, APPROVAL);
  high.receive(gone, 1, CMD, APPROVAL);
  gone.alive = false;
  clock.advance(999);
  assert.deepEqual(a.answers, []);
  clock.advance(1);
  assert.deepEqual(a.answers, [{ rpcId: 1, result: { decision: "cancel" } }]);
  clock.advance(10 * 60 * 1000 - 1000);
  assert.deepEqual(b.answers, [{ rpcId: 1, result: { decision: "cancel" } }]);
  assert.deepEqual(gone.answers, []);
  assert.equal(high.size, 0);
  assert.equal(clock.pending, 0, "no timer is left");
});

Deno.test("router: an answered token's deadline timer is cancelled", () => {
  const clock = new ManualClock();
  const { router, a } = setup(clock);
  router.receive(a, 1, CMD, APPROVAL);
  const [p] = router.pendingFor(a);
  router.answer(p.token, a.id, { action: "decline" });
  assert.equal(clock.pending, 0);
  clock.advance(10 * 60 * 1000);
  assert.equal(a.answers.length, 1);
});
