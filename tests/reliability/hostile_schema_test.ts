/**
 * issue 39 through `mod.ts serve` as users start it, against the fixture app-server: a final
 * answer that makes `^(a+)+$` backtrack is judged at once while `codex_list_threads` is served,
 * and 150 `outputSchema`s with 1,700 nested `$id`s each are refused without growing the relay.
 */

import assert from "assert";
import { agentItem, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";
import { within } from "../../testing/deadline.ts";
import { rssKiB, startRelayProcess } from "./_reliability.ts";

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
