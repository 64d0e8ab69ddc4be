/**
 * Load: 500 mixed calls (list, queue by id and by name, invalid input, read
 * and wait when registered) from 10 concurrent lanes through ONE relay against
 * the fixture. Every call is answered as it should be, every receipt tells the
 * truth, at most 4 helpers are alive at any instant (the relay's own
 * spawn/reap log, and the process table sampled throughout), and the relay's
 * memory stays flat after a warm-up.
 */

import assert from "assert";
import { FixtureHome } from "../_fixture.ts";
import {
  assertReceiptsTruthful,
  callTool,
  helpersFromLog,
  leakedSecrets,
  OWN_FINAL,
  READ_CLIENT_ID,
  registeredTools,
  type RelayProcess,
  resultText,
  rssKiB,
  sampleWhile,
  type Seeded,
  seeded,
  startRelayProcess,
} from "./_reliability.ts";

const LANES = 10;
const CALLS_PER_LANE = 50;
const WARM_UP_PER_LANE = 6;
/** RSS growth allowed over the 500 calls, after the warm-up. */
const RSS_SLACK_KIB = 20 * 1024;
/**
 * Under V8's default limits the heap grows lazily under load (garbage is
 * collected late, so RSS keeps rising for thousands of calls without any
 * object being retained; measured: +100 MB over 4000 calls, flat with a cap).
 * A capped old space makes garbage go promptly, so RSS growth measures what
 * is retained, and a leak past the cap crashes the relay (the calls fail).
 * Only the heap policy changes: the command line is the users' one.
 */
const V8_FLAGS = "--max-old-space-size=32";
const HELPER_CAP = 4;

type Kind = "list" | "queue_id" | "queue_name" | "invalid" | "read" | "wait";

interface Outcome {
  kind: Kind;
  receipt?: Record<string, unknown>;
}

/** One call of `kind`, checked; returns the receipt of queue calls. */
async function call(relay: RelayProcess, s: Seeded, kind: Kind, n: number): Promise<Outcome> {
  const args: Record<Kind, [string, Record<string, unknown>]> = {
    list: ["codex_list_threads", { limit: 10 }],
    queue_id: ["codex_queue_message", { threadId: s.main.id, text: `load ${n}` }],
    queue_name: ["codex_queue_message", { threadId: "reliability named", text: `load ${n}` }],
    invalid: ["codex_queue_message", { threadId: s.main.id, text: "" }],
    read: ["codex_read_reply", { threadId: s.main.id, clientMessageId: READ_CLIENT_ID }],
    wait: ["codex_wait_reply", {
      threadId: s.main.id,
      clientMessageId: READ_CLIENT_ID,
      timeoutSeconds: 1,
    }],
  };
  const [tool, a] = args[kind];
  const result = await callTool(relay.client, tool, a);
  const label = `${kind} #${n}: ${resultText(result).slice(0, 200)}`;
  assert.deepEqual(leakedSecrets(result), [], label);
  if (kind === "invalid") {
    assert.equal(result.isError, true, label);
    return { kind };
  }
  assert.notEqual(result.isError, true, label);
  const out = result.structuredContent!;
  switch (kind) {
    case "list":
      assert.equal(out.status, "ok", label);
      assert.ok((out.threads as { id: string }[]).some((t) => t.id === s.main.id), label);
      return { kind };
    case "queue_id":
    case "queue_name":
      assert.equal(out.status, "queued", label);
      assert.equal(out.confirmedBy, "acknowledgement", label);
      assert.equal(out.threadId, kind === "queue_id" ? s.main.id : s.named.id, label);
      return { kind, receipt: out };
    case "read":
    case "wait":
      assert.equal(out.status, "observed", label);
      assert.deepEqual((out.replies as { text: string }[]).map((r) => r.text), [OWN_FINAL], label);
      return { kind };
  }
}

/** `lanes` concurrent sequences of `perLane` calls cycling through `kinds`. */
function runLanes(
  relay: RelayProcess,
  s: Seeded,
  kinds: readonly Kind[],
  lanes: number,
  perLane: number,
  offset: number,
): Promise<Outcome[][]> {
  return Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      const out: Outcome[] = [];
      for (let i = 0; i < perLane; i++) {
        const n = offset + lane * perLane + i;
        out.push(await call(relay, s, kinds[(lane + i) % kinds.length], n));
      }
      return out;
    }),
  );
}

Deno.test("load: 500 mixed calls from 10 concurrent lanes through one relay stay within 4 helpers and flat memory", async () => {
  const s = seeded();
  const f = await FixtureHome.create(s.scenario);
  const relay = await startRelayProcess({
    env: { ...f.env, DENO_V8_FLAGS: V8_FLAGS },
    flags: ["--allow-reply-read", "--log-level", "debug"],
  });
  let stderr = "";
  try {
    const tools = await registeredTools(relay.client);
    const kinds: Kind[] = ["list", "queue_id", "queue_name", "invalid"];
    if (tools.includes("codex_read_reply")) kinds.push("read");
    if (tools.includes("codex_wait_reply")) kinds.push("wait");

    const warm = (await runLanes(relay, s, kinds, LANES, WARM_UP_PER_LANE, 0)).flat();
    const rssBefore = await rssKiB(relay.pid);
    const spawnedBefore = helpersFromLog(relay.transport.stderr).spawned;

    const run = runLanes(relay, s, kinds, LANES, CALLS_PER_LANE, 10_000);
    const sampled = await sampleWhile(run, f.home, relay.pid);
    const outcomes = (await run).flat();
    const rssAfter = await rssKiB(relay.pid);

    assert.equal(outcomes.length, LANES * CALLS_PER_LANE, "every call was answered");
    for (const kind of kinds) {
      assert.ok(outcomes.filter((o) => o.kind === kind).length >= 50, `enough ${kind} calls`);
    }
    await assertReceiptsTruthful(
      f,
      [...warm, ...outcomes].flatMap((o) => (o.receipt ? [o.receipt] : [])),
    );
    const helpers = helpersFromLog(relay.transport.stderr);
    assert.ok(helpers.spawned - spawnedBefore >= 300, "the calls really spawned helpers");
    assert.ok(helpers.peak <= HELPER_CAP, `at most 4 helpers by the relay's log (${helpers.peak})`);
    assert.ok(sampled.samples >= 5, `the process table was sampled (${sampled.samples} times)`);
    assert.ok(
      sampled.peakProcesses <= HELPER_CAP,
      `at most 4 helpers in the process table (${sampled.peakProcesses})`,
    );
    assert.ok(
      rssAfter - rssBefore <= RSS_SLACK_KIB,
      `memory stays flat: ${rssBefore} KiB after the warm-up, ${rssAfter} KiB after 500 calls`,
    );
  } finally {
    const closed = await relay.close();
    stderr = closed.stderr;
    const left = f.alive();
    await f.dispose();
    assert.equal(closed.code, 0, `the relay exits 0:\n${stderr.slice(-2000)}`);
    assert.deepEqual(left, [], "no helper is left");
  }
  const helpers = helpersFromLog(stderr);
  assert.equal(helpers.spawned, helpers.reaped, "every helper spawned was reaped");
  assert.ok(!stderr.includes("load "), "message text never reaches the log");
});
