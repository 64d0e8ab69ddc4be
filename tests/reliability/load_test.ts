/**
 * Load: 500 mixed calls (list, queue by id and by name, invalid input, read
 * and wait when registered) from 10 concurrent lanes through ONE relay against
 * the fixture. Every call is answered as it should be, every receipt tells the
 * truth, at most 4 helpers are alive at any instant (the relay's own
 * spawn/reap log, and the process table sampled throughout), and the relay's
 * memory stays flat after a warm-up.
 *
 * At the turn-start level: short `codex_run` turns (half asking an approval
 * the client answers) mixed with other calls from 8 lanes, within 4 helpers,
 * every thread released; and, with a manual clock, a fifth `codex_run` while
 * four turns hold every helper: it waits 20 s for one, then is `busy` with
 * nothing queued.
 */

import { turnRig } from "../../testing/turn_rig.ts";
import assert from "assert";
import { agentItem, FixtureHome, thread } from "../../testing/fixture_home.ts";
import type { TurnStep } from "../../fixtures/scenario.ts";
import { callTool } from "../../testing/call_tool.ts";
import {
  assertReceiptsTruthful,
  assertThreadsReleased,
  helpersFromLog,
  leakedSecrets,
  OWN_FINAL,
  READ_CLIENT_ID,
  registeredTools,
  type RelayProcess,
  resultText,
  rssKiB,
  sampleWhile,
  SECRETS,
  type Seeded,
  seeded,
  startRelayProcess,
  storedMessages,
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
/** Turns at once in spawn mode (`SpawnLimits.turns`). */
const TURN_CAP = 8;

type Kind = "list" | "queue_id" | "queue_name" | "invalid" | "read" | "wait";

interface Outcome {
  kind: Kind;
  receipt?: Record<string, unknown>;
}

/** One call of `kind`, checked; returns the receipt of queue calls. */
async function callAndCheck(
  relay: RelayProcess,
  s: Seeded,
  kind: Kind,
  n: number,
  turnStart = false,
): Promise<Outcome> {
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
  // At the turn-start level (where the client chooses cwds) the list shows each thread's cwd.
  const secrets = Object.values(SECRETS).filter((x) =>
    !(turnStart && kind === "list" && x === SECRETS.cwd)
  );
  assert.deepEqual(leakedSecrets(result, secrets), [], label);
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
        out.push(await callAndCheck(relay, s, kinds[(lane + i) % kinds.length], n));
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
    // Spawn mode's operations share the warm helper: no Codex start per call.
    assert.ok(
      helpers.spawned - spawnedBefore <= 1,
      `the calls ran on the warm helper (${helpers.spawned - spawnedBefore} spawned during them)`,
    );
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
  } catch (error) {
    await relay.close().catch(() => {});
    await f.dispose();
    throw error;
  }
  const closed = await relay.close().catch((error: Error) => error);
  const left = f.alive();
  await f.dispose();
  if (closed instanceof Error) throw closed;
  stderr = closed.stderr;
  assert.equal(closed.code, 0, `the relay exits 0:\n${stderr.slice(-2000)}`);
  assert.deepEqual(left, [], "no helper is left");
  const helpers = helpersFromLog(stderr);
  assert.equal(helpers.spawned, helpers.reaped, "every helper spawned was reaped");
  assert.ok(!stderr.includes("load "), "message text never reaches the log");
});

// ------------------------------------------------------------- turn start

const RUN_FINAL = "load run final 41be";
const APPROVAL: TurnStep = {
  request: {
    method: "item/commandExecution/requestApproval",
    params: {
      itemId: "call_load_1",
      reason: "load",
      command: "/bin/true",
      cwd: "/workspace",
      commandActions: [],
      availableDecisions: ["accept", "decline", "cancel"],
    },
  },
};
const TURN_LANES = 8;
const TURN_CALLS_PER_LANE = 28;

type TurnKind = "run" | "list" | "queue_id" | "read" | "invalid_run" | "interrupt";
const TURN_KINDS: readonly TurnKind[] = [
  "run",
  "list",
  "queue_id",
  "run",
  "read",
  "invalid_run",
  "interrupt",
];

Deno.test("load (turn start): codex_run turns (half of them asking an approval) mixed with other calls from 8 lanes are all answered within 4 helpers, and every thread is released", async () => {
  const s = seeded();
  // Each lane runs its turns on its own thread, one at a time.
  const runThreads = Array.from({ length: TURN_LANES }, (_, lane) =>
    thread({
      name: `load run ${lane}`,
      scripts: [[
        ...(lane % 2 === 0 ? [APPROVAL] : []),
        { item: agentItem("msg_load_final", RUN_FINAL) },
        { end: "completed" },
      ]],
    }));
  const f = await FixtureHome.create({ threads: [...s.scenario.threads, ...runThreads] });
  let asked = 0;
  const relay = await startRelayProcess({
    env: f.env,
    flags: ["--allow-turn-start", "--allow-reply-read", "--log-level", "debug"],
    onElicit: () => {
      asked++;
      return { action: "accept", content: { decision: "accept" } };
    },
  });
  let stderr = "";
  const receipts: Record<string, unknown>[] = [];
  let runs = 0;
  let approvalRuns = 0;
  try {
    const call = async (lane: number, kind: TurnKind, n: number): Promise<void> => {
      const threadId = runThreads[lane].id;
      if (kind === "list" || kind === "queue_id" || kind === "read") {
        const out = await callAndCheck(relay, s, kind, n, true);
        if (out.receipt) receipts.push(out.receipt);
        return;
      }
      const [tool, args]: [string, Record<string, unknown>] = kind === "run"
        ? ["codex_run", { threadId, text: `load ${n}`, waitSeconds: 30 }]
        : kind === "invalid_run"
        ? ["codex_run", { threadId, cwd: "/tmp", text: `load ${n}` }]
        : ["codex_interrupt", { threadId }];
      const result = await callTool(relay.client, tool, args);
      const label = `${kind} #${n}: ${resultText(result).slice(0, 300)}`;
      assert.deepEqual(leakedSecrets(result), [], label);
      if (kind === "invalid_run") return assert.equal(result.isError, true, label);
      assert.notEqual(result.isError, true, label);
      const out = result.structuredContent!;
      if (kind === "interrupt") return assert.equal(out.status, "not_running", label);
      runs++;
      if (lane % 2 === 0) approvalRuns++;
      const receipt = out.receipt as Record<string, unknown>;
      receipts.push(receipt);
      assert.equal(receipt.status, "queued", label);
      assert.equal((out.turn as { status: string }).status, "completed", label);
      assert.deepEqual((out.replies as { text: string }[]).map((r) => r.text), [RUN_FINAL], label);
    };
    const lanes = Promise.all(
      Array.from({ length: TURN_LANES }, async (_, lane) => {
        for (let i = 0; i < TURN_CALLS_PER_LANE; i++) {
          await call(lane, TURN_KINDS[(lane + i) % TURN_KINDS.length], lane * 100 + i);
        }
      }),
    );
    const sampled = await sampleWhile(lanes, f.home);
    await lanes;

    assert.ok(runs >= 60 && approvalRuns >= 30, `enough turns (${runs}, ${approvalRuns} asking)`);
    assert.equal(asked, approvalRuns, "every approval reached the client once");
    const answers = await f.answers();
    assert.equal(answers.length, approvalRuns, "every approval was answered once");
    assert.ok(answers.every((a) => (a.result as { decision?: string }).decision === "accept"));
    await assertReceiptsTruthful(f, receipts);
    await assertThreadsReleased(f);
    const helpers = helpersFromLog(relay.transport.stderr);
    assert.ok(helpers.peak <= HELPER_CAP, `4 operation helpers at most (${helpers.peak})`);
    assert.ok(sampled.samples >= 5, `the process table was sampled (${sampled.samples} times)`);
    assert.ok(
      sampled.peakProcesses <= HELPER_CAP + 1,
      `at most 4 helpers and the turn host in the process table (${sampled.peakProcesses})`,
    );
  } catch (error) {
    await relay.close().catch(() => {});
    await f.dispose();
    throw error;
  }
  const closed = await relay.close().catch((error: Error) => error);
  const left = f.alive();
  await f.dispose();
  if (closed instanceof Error) throw closed;
  stderr = closed.stderr;
  assert.equal(closed.code, 0, `the relay exits 0:\n${stderr.slice(-2000)}`);
  assert.deepEqual(left, [], "no helper is left");
  const helpers = helpersFromLog(stderr);
  assert.equal(helpers.spawned, helpers.reaped, "every helper spawned was reaped");
  const hosts = (pattern: RegExp) => stderr.split("\n").filter((l) => pattern.test(l)).length;
  const hostsSpawned = hosts(/^codex-relay debug turn host spawned pid=/);
  assert.ok(hostsSpawned >= 1, "the turns ran on a turn host");
  assert.equal(
    hosts(/^codex-relay debug turn host reaped pid=/),
    hostsSpawned,
    "every turn host was reaped",
  );
  assert.ok(!stderr.includes("load ") && !stderr.includes(RUN_FINAL), "no text reaches the log");
});

Deno.test("load (turn start): with 8 turns running on the one turn host, a list answers at once, a 9th codex_run is busy at once with the count, and a freed seat is taken (in process, manual clock)", async () => {
  const holding = Array.from(
    { length: TURN_CAP },
    (_, i) => thread({ scripts: [[{ barrier: `hold-${i}` }, { end: "completed" }]] }),
  );
  const ninth = thread();
  const tenth = thread();
  const f = await FixtureHome.create({ threads: [...holding, ninth, tenth] });
  const barriers = await Promise.all(holding.map((_, i) => f.barrier(`hold-${i}`)));
  const { connection, turns, starts } = turnRig(f, { connectionOnManualClock: true });
  const signal = new AbortController().signal;
  let left: number[] = [];
  try {
    const runtimes = await Promise.all(holding.map(async (t, i) => {
      const started = await starts.inThread(t.id, `hold ${i}`, signal);
      assert.ok(started.runtime, `turn ${i} started: ${started.message}`);
      await barriers[i].reached(); // Running, silent, holding its view of the turn host.
      return started.runtime;
    }));
    assert.equal(connection.stats.held, TURN_CAP);
    assert.equal(connection.stats.alive, 1, "one app-server runs all 8 turns");
    const turnPids = new Set(
      (await f.requests()).filter((r) => r.method === "thread/resume").map((r) => r.pid),
    );
    assert.equal(turnPids.size, 1, "every turn was resumed in the same process");

    // The manual clock never moves: an answer here came without waiting for a slot.
    const listed = await connection.operation((session) => session.call("thread/list", {}), {
      signal,
      label: "list",
    });
    assert.ok(
      (listed as { data: unknown[] }).data.length > 0,
      "the list answered while 8 turns ran",
    );
    const busy = await starts.inThread(ninth.id, "ninth", signal);
    assert.equal(busy.runtime, undefined);
    assert.deepEqual([busy.receipt.status, busy.reason], ["not_sent", "busy"], busy.message);
    assert.match(
      busy.message ?? "",
      /^8 turns are running, the most this relay runs at once in spawn mode; wait for one to end \(codex_wait_reply\) or interrupt one/,
    );
    const stored = await storedMessages(f);
    assert.equal(stored.get(busy.receipt.clientMessageId) ?? 0, 0);
    assert.ok(
      !(await f.requests()).some((r) => (r.params as { threadId?: string }).threadId === ninth.id),
      "nothing about the ninth thread reached Codex",
    );

    await barriers[0].release(); // The first turn ends: its seat is given back.
    assert.equal((await runtimes[0].run.settled).snapshot.phase, "completed");
    const ran = await starts.inThread(tenth.id, "tenth", signal);
    assert.ok(ran.runtime, `the tenth call ran: ${ran.message}`);
    assert.equal((await ran.runtime.run.settled).snapshot.phase, "completed");
    for (const b of barriers.slice(1)) await b.release();
    for (const runtime of runtimes) {
      assert.equal((await runtime.run.settled).snapshot.phase, "completed");
    }
    assert.equal(connection.stats.held, 0);
    for (const pid of turnPids) {
      assert.equal(f.helperOf(pid), undefined, "the turn host was reaped with its last turn");
    }
    assert.equal(connection.stats.alive, 1, "only the warm helper (of the list) is up");
    assert.equal(
      new Set((await f.requests()).filter((r) => r.method === "thread/resume").map((r) => r.pid))
        .size,
      1,
      "the tenth turn ran on the same turn host",
    );
    await assertThreadsReleased(f);
  } finally {
    await turns.shutdown();
    await connection.shutdown();
    left = f.alive();
    await f.dispose();
  }
  assert.deepEqual(left, [], "no helper is left");
});
