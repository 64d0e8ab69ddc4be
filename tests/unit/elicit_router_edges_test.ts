import assert from "assert";
import { type DeclinedRequest, ElicitationRouter } from "../../src/elicit/router.ts";
import { FakeRuntime } from "../../testing/fake_runtime.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { silentLogger } from "../../src/core/log.ts";

const router = (autoApproveMcpTools = false) =>
  new ElicitationRouter({ clock: new ManualClock(), log: silentLogger, autoApproveMcpTools });

Deno.test("ElicitationRouter: a routed request without params is still pending for the client, never a crash", () => {
  const r = router(true);
  const a = new FakeRuntime();
  r.receive(a, 1, "item/commandExecution/requestApproval", null);
  r.receive(a, 2, "item/commandExecution/requestApproval", "odd");
  assert.equal(r.size, 2);
  assert.deepEqual(r.pendingFor(a).map((p) => p.method), [
    "item/commandExecution/requestApproval",
    "item/commandExecution/requestApproval",
  ]);
  assert.deepEqual(a.answers, []);
});

Deno.test("ElicitationRouter with auto-approval: an MCP elicitation without _meta is asked, not accepted", () => {
  const r = router(true);
  const a = new FakeRuntime();
  r.receive(a, 3, "mcpServer/elicitation/request", {
    threadId: "t",
    turnId: "u",
    serverName: "docs",
    mode: "url",
    message: "Sign in",
    url: "https://example.com/login",
  });
  assert.deepEqual(a.answers, [], "not answered by the router");
  const [p] = r.pendingFor(a);
  assert.equal(p.forward.kind, "url");
});

Deno.test("ElicitationRouter: a declined unforwardable request tells the caller a summary of at most 200 characters", () => {
  const r = router();
  const a = new FakeRuntime();
  const declined: DeclinedRequest[] = [];
  Object.assign(a, { declinedUnforwardable: (d: DeclinedRequest) => declined.push(d) });
  const serverName = "s".repeat(300);
  r.receive(a, 4, "mcpServer/elicitation/request", { serverName, mode: "nope" });
  assert.equal(declined.length, 1);
  assert.equal(declined[0].method, "mcpServer/elicitation/request");
  assert.equal(declined[0].summary, `[${serverName}`.slice(0, 200));
  assert.deepEqual(a.answers, [{
    rpcId: 4,
    result: { action: "decline", content: null, _meta: null },
  }]);
  assert.equal(r.size, 0);
});

Deno.test("ElicitationRouter: an accepted form answer that fits the schema reaches Codex as Codex's accept", () => {
  const r = router();
  const a = new FakeRuntime();
  r.receive(a, 5, "mcpServer/elicitation/request", {
    serverName: "docs",
    mode: "form",
    message: "Which one?",
    requestedSchema: {
      type: "object",
      properties: { pick: { type: "string" } },
      required: ["pick"],
    },
  });
  const [p] = r.pendingFor(a);
  assert.equal(p.forward.kind, "form");
  assert.equal(r.answer(p.token, a.id, { action: "accept", content: { pick: "b" } }), "answered");
  assert.deepEqual(a.answers, [{
    rpcId: 5,
    result: { action: "accept", content: { pick: "b" }, _meta: null },
  }]);
});
