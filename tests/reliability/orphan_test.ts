/**
 * A `codex` whose own child outlives it and keeps its stdout and stderr open
 * (the fixture's `orphan` startup fault: the child ignores SIGTERM, never
 * reads or writes; only a SIGKILL of the process group ends it). Through
 * `mod.ts serve` under the relay's own permission set: calls still answer (on
 * the one warm helper), and a shutdown on stdin EOF or SIGTERM while four
 * calls are blocked on it ends within 2 s, with exit 0 and no descendant left.
 */

import assert from "assert";
import { FixtureHome } from "../../testing/fixture_home.ts";
import type { Fault, Scenario } from "../../fixtures/scenario.ts";
import { callTool } from "../../testing/call_tool.ts";
import { type RelayProcess, seeded, startRelayProcess } from "./_reliability.ts";

const FLAGS = ["--allow-reply-read", "--log-level", "debug"];
/** The shutdown bound (docs/design.md, "Bounds"). */
const SHUTDOWN_MS = 2_000;

async function orphans(f: FixtureHome): Promise<number> {
  return (await f.log()).filter((e) => e.event === "orphan").length;
}

Deno.test("orphaning grandchild: eight calls at once all answer on one warm helper; after shutdown no process is left", async () => {
  const s = seeded();
  const f = await FixtureHome.create({ ...s.scenario, startup: { stubborn: true, orphan: true } });
  const relay = await startRelayProcess({ env: f.env, flags: FLAGS });
  try {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => callTool(relay.client, "codex_list_threads", { limit: 5 })),
    );
    for (const r of results) {
      assert.equal(r.structuredContent?.status, "ok", JSON.stringify(r.structuredContent));
    }
    assert.equal((await f.spawned()).length, 1, "one warm helper served all eight");
    assert.equal(await orphans(f), 1, "it left its orphan behind");
  } finally {
    const { code } = await relay.close();
    assert.equal(code, 0);
    assert.deepEqual(f.alive(), [], "no process is left after shutdown");
    await f.dispose();
  }
});

/** Four list calls that never answer, on a warm helper that left an orphan; resolves once all four wait. */
async function blockedRelay(): Promise<
  { f: FixtureHome; relay: RelayProcess; calls: Promise<unknown>[] }
> {
  const s = seeded();
  const faults: Fault[] = [0, 1, 2, 3].map((i) => ({
    method: "thread/list",
    once: `blocked-${i}`,
    barrier: `blocked-${i}`,
    action: { never: true },
  }));
  const scenario: Scenario = { ...s.scenario, faults, startup: { stubborn: true, orphan: true } };
  const f = await FixtureHome.create(scenario);
  const barriers = await Promise.all(faults.map((x) => f.barrier(x.barrier!)));
  const relay = await startRelayProcess({ env: f.env, flags: FLAGS });
  const calls = [0, 1, 2, 3].map(() =>
    callTool(relay.client, "codex_list_threads", { limit: 5 }).catch((e) => e)
  );
  for (const b of barriers) await b.reached();
  for (const b of barriers) await b.release();
  assert.equal(await orphans(f), 1);
  return { f, relay, calls };
}

for (const how of ["stdin EOF", "SIGTERM"] as const) {
  Deno.test(`orphaning grandchild: ${how} with four calls blocked ends the relay within 2 s, exit 0, no descendant left`, async () => {
    const { f, relay, calls } = await blockedRelay();
    try {
      const start = performance.now();
      if (how === "stdin EOF") {
        await relay.transport.close();
      } else {
        Deno.kill(relay.pid, "SIGTERM");
      }
      const status = await relay.transport.exited;
      const tookMs = Math.round(performance.now() - start);
      assert.equal(status.code, 0, `exit code (signal ${status.signal})`);
      assert.ok(tookMs < SHUTDOWN_MS, `shutdown took ${tookMs} ms`);
      assert.deepEqual(f.alive(), [], "no helper and no orphan is left");
      await Promise.all(calls);
      const { stderr } = await relay.close();
      assert.match(stderr, /shutting down/);
    } finally {
      await relay.close().catch(() => {});
      await f.dispose();
    }
  });
}
