/**
 * issue 39 through `mod.ts serve` as users start it, against the fixture app-server: a final
 * answer that makes `^(a+)+$` backtrack is judged at once while `codex_list_threads` is served,
 * and 150 `outputSchema`s with 1,700 nested `$id`s each are refused without growing the relay.
 * issue 46 item 1: the costliest check known (an `anyOf` fan-out to a 511-unit pattern, minutes
 * before) ends within its bound: another tool answers, and stdin EOF ends the relay in time.
 */

import assert from "assert";
import { agentItem, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";
import { within } from "../../testing/deadline.ts";
import { rssKiB, startRelayProcess } from "./_reliability.ts";
import { fanOut, NESTED_511 } from "../../testing/hostile_checks.ts";
import { MAX_CHECK_STEPS } from "../../src/reply/schema_match.ts";

type Obj = Record<string, unknown>;
const FLAGS = ["--allow-turn-start", "--allow-reply-read"];

const closed = (properties: Obj): Obj => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

/** What a served call may take while an answer is judged (the issue saw none within 10 s). */
const SERVED_MS = 10_000;

Deno.test("a final answer that makes its pattern backtrack is judged at once; codex_list_threads is served meanwhile", async () => {
  const hostile = `{"v":"${"a".repeat(40)}!"}`;
  const t = thread({
    scripts: [[{ barrier: "final" }, { item: agentItem("msg_hostile", hostile) }]],
  });
  const f = await FixtureHome.create({ threads: [t] });
  const final = await f.barrier("final");
  const relay = await startRelayProcess({ env: f.env, flags: FLAGS });
  const end = await closeAfter(relay, f, async () => {
    const run = callTool(relay.client, "codex_run", {
      threadId: t.id,
      text: "answer with v",
      outputSchema: closed({ v: { type: "string", pattern: "^(a+)+$" } }),
    });
    await final.reached();
    const t0 = performance.now();
    await final.release();
    const [out, list] = await within(
      Promise.all([run, callTool(relay.client, "codex_list_threads", {})]),
      "the run's result and codex_list_threads' answer",
      SERVED_MS,
    );
    const ms = performance.now() - t0;
    assert.equal(out.structuredContent.turn?.status, "completed");
    assert.deepEqual(out.structuredContent.structured, {
      valid: false,
      error: 'the answer does not match the schema: /v must match pattern "^(a+)+$"',
    });
    assert.ok(list.structuredContent.threads.some((x) => x.id === t.id), "the list is served");
    assert.ok(ms < SERVED_MS, `judged and served in ${ms.toFixed(0)} ms`);
  });
  assert.equal(end.code, 0, "the relay exits 0 on stdin EOF");
});

Deno.test("150 outputSchemas with 1,700 nested $ids each are refused, nothing reaches Codex, RSS stays flat", async () => {
  const t = thread();
  const f = await FixtureHome.create({ threads: [t] });
  const relay = await startRelayProcess({ env: f.env, flags: FLAGS });
  const withIds = (n: number) => {
    const properties: Obj = {};
    for (let i = 0; i < 1_700; i++) properties[`p${i}`] = { $id: `${n}/${i}` };
    return closed({ a: closed(properties) });
  };
  const refuse = async (n: number) => {
    const out = (await callTool(relay.client, "codex_run", {
      threadId: t.id,
      text: "ids",
      outputSchema: withIds(n),
    })).structuredContent;
    assert.equal(out.reason, "invalid_schema", JSON.stringify(out));
    assert.match(out.message ?? "", /"\$id" is not supported.*rule supported_keywords/);
  };
  let before = 0;
  let after = 0;
  const end = await closeAfter(relay, f, async () => {
    for (let n = 0; n < 20; n++) await refuse(n);
    before = await rssKiB(relay.pid);
    for (let n = 20; n < 150; n++) await refuse(n);
    after = await rssKiB(relay.pid);
    assert.deepEqual(await f.spawned(), [], "no app-server was even started");
  });
  assert.equal(end.code, 0, "the relay lived through them and exits 0 on stdin EOF");
  assert.ok(
    after - before <= 16 * 1024,
    `RSS ${before} KiB after 20 refused schemas, ${after} KiB after 150`,
  );
});

/** The one-check bound (1 s of CPU) and slack for a loaded 2-core machine. */
const ONE_CHECK_SERVED_MS = 3_000;

/** A run whose answer meets the costliest check known, its final answer held at a barrier. */
async function costlyRun() {
  const answer = JSON.stringify({ v: `${"a".repeat(64)}!` });
  const t = thread({
    scripts: [[{ barrier: "final" }, { item: agentItem("msg_costly", answer) }]],
  });
  const f = await FixtureHome.create({ threads: [t] });
  const final = await f.barrier("final");
  const relay = await startRelayProcess({ env: f.env, flags: FLAGS });
  const run = () =>
    callTool(relay.client, "codex_run", {
      threadId: t.id,
      text: "answer with v",
      outputSchema: fanOut({ type: "string", pattern: NESTED_511 }, 20),
    });
  return { t, f, final, relay, run };
}

Deno.test("the costliest answer check known ends within its bound; codex_list_threads answers", async () => {
  const { t, f, final, relay, run } = await costlyRun();
  const end = await closeAfter(relay, f, async () => {
    const out = run();
    await final.reached();
    await final.release();
    const t0 = performance.now();
    const [result, list] = await within(
      Promise.all([out, callTool(relay.client, "codex_list_threads", {})]),
      "the costly run's result and codex_list_threads' answer",
      ONE_CHECK_SERVED_MS,
    );
    assert.deepEqual(result.structuredContent.structured, {
      valid: false,
      error: `the answer could not be checked within ${MAX_CHECK_STEPS} steps of the schema`,
    });
    assert.ok(list.structuredContent.threads.some((x) => x.id === t.id), "the list is served");
    assert.ok(performance.now() - t0 < ONE_CHECK_SERVED_MS);
  });
  assert.equal(end.code, 0, "the relay exits 0 on stdin EOF");
});

Deno.test("stdin EOF while the costliest answer check runs ends the relay within the shutdown bound", async () => {
  const { f, final, relay, run } = await costlyRun();
  const end = await closeAfter(relay, f, async () => {
    const out = run().catch(() => undefined);
    await final.reached();
    await final.release();
    // close() throws when the relay is not gone within the shutdown bound of stdin EOF.
    const { code } = await relay.close();
    assert.equal(code, 0, "the relay exits 0");
    await out;
  });
  assert.equal(end.code, 0);
});
