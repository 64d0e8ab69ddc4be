import assert from "assert";
import {
  type DeclinedRequest,
  ElicitationRouter,
  type RuntimeHandle,
} from "../../src/elicit/router.ts";
import { ELICITATION_MODES } from "../../src/elicit/mappings.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { silentLogger } from "../../src/core/log.ts";

class Runtime implements RuntimeHandle {
  readonly id = crypto.randomUUID();
  alive = true;
  answers: { rpcId: number | string; result: unknown }[] = [];
  declined: DeclinedRequest[] = [];
  respond(rpcId: number | string, result: unknown): void {
    this.answers.push({ rpcId, result });
  }
  respondError(): void {
    throw new Error("no JSON-RPC error expected");
  }
  changed(): void {}
  waitingOnHuman(): void {}
  requestCancelled(): void {}
  declinedUnforwardable(declined: DeclinedRequest): void {
    this.declined.push(declined);
  }
}

const DECLINE = { action: "decline", content: null, _meta: null };

// Shape of McpServerElicitationRequestParams, openai/userVerification branch (0.169 and 0.171).
const USER_VERIFICATION = {
  threadId: "t",
  turnId: "u",
  serverName: "bank",
  mode: "openai/userVerification",
  title: "Confirm it is you",
  description: "Approve the transfer on your device",
  challenge: "c2VjcmV0LWNoYWxsZW5nZQ",
  _meta: null,
};

for (
  const [name, params] of [
    ["openai/userVerification", USER_VERIFICATION],
    ["an unknown mode", { ...USER_VERIFICATION, mode: "openai/somethingNew", message: "m" }],
    ["no mode", { threadId: "t", turnId: "u", serverName: "bank", message: "m" }],
  ] as const
) {
  Deno.test(`router: an elicitation of ${name} is declined at once and reported, never pending`, () => {
    const router = new ElicitationRouter({ clock: new ManualClock(), log: silentLogger });
    const runtime = new Runtime();
    router.receive(runtime, 3, "mcpServer/elicitation/request", params);
    assert.deepEqual(runtime.answers, [{ rpcId: 3, result: DECLINE }], "Codex got decline at once");
    assert.equal(router.size, 0, "nothing waits for the client");
    assert.deepEqual(router.pendingFor(runtime), []);
    assert.equal(runtime.declined.length, 1, "the caller is told");
    assert.equal(runtime.declined[0].method, "mcpServer/elicitation/request");
    assert.match(runtime.declined[0].summary, /\[bank\] asked for input of mode .*cannot forward/);
    assert.ok(!runtime.declined[0].summary.includes("c2VjcmV0"), "the challenge is not shown");
  });
}

Deno.test("router: the forwarded modes stay pending for the client; nothing is reported declined", () => {
  const router = new ElicitationRouter({ clock: new ManualClock(), log: silentLogger });
  const runtime = new Runtime();
  const forwarded = Object.entries(ELICITATION_MODES).filter(([, how]) => how === "forward");
  assert.deepEqual(forwarded.map(([m]) => m).sort(), ["form", "openai/form", "openaiForm", "url"]);
  forwarded.forEach(([mode], i) =>
    router.receive(runtime, i, "mcpServer/elicitation/request", {
      threadId: "t",
      turnId: "u",
      serverName: "s",
      mode,
      message: "m",
      requestedSchema: { type: "object", properties: {} },
      url: "https://example.com/x",
      elicitationId: "e",
    })
  );
  assert.equal(router.size, forwarded.length);
  assert.deepEqual(runtime.answers, []);
  assert.deepEqual(runtime.declined, []);
  router.declineAll(runtime, "test over");
});
