import assert from "assert";
import { OwnRequests } from "../../src/turn/own_requests.ts";

const request = (id: number | string, params: unknown) => ({
  id,
  method: "item/commandExecution/requestApproval",
  params,
});

Deno.test("OwnRequests takes a request of its own turn once; another turn's, or any before its turn is known, never", () => {
  const own = new OwnRequests();
  assert.equal(own.take(request(1, { turnId: "mine" }), null), false, "turn not known yet");
  assert.equal(own.take(request(1, { turnId: "mine" }), "mine"), true, "taken once known");
  assert.equal(own.take(request(1, { turnId: "mine" }), "mine"), false, "a replay: not again");
  assert.equal(own.take(request(2, { turnId: "theirs" }), "mine"), false, "another turn's");
  assert.equal(own.take(request(2, { turnId: "mine" }), "mine"), true, "not marked by a refusal");
  assert.equal(own.take(request("3", { turnId: "mine" }), "mine"), true, "string ids too");
});

Deno.test("OwnRequests never takes a request without a turn id, whatever its params", () => {
  const own = new OwnRequests();
  for (const params of [undefined, null, "mine", 7, [], {}, { turnId: null }, { turn: "mine" }]) {
    assert.equal(own.take(request(1, params), "mine"), false, JSON.stringify(params));
  }
  assert.equal(own.take(request(1, { turnId: "mine" }), "mine"), true, "refusals took nothing");
});

Deno.test("OwnRequests before its turn is known takes nothing, not even a request whose turn id is null", () => {
  const own = new OwnRequests();
  assert.equal(own.take(request(1, { turnId: null }), null), false);
  assert.equal(own.take(request(2, {}), null), false);
});
