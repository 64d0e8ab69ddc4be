/**
 * The fault matrix: every fixture fault against every tool registered at the
 * level under test, through the relay (`mod.ts serve --allow-reply-read`).
 * Each call must give the status and reason of `testing/fault_table.ts`, name the
 * reason in its text, return no text outside the caller's scope, leave no
 * process behind, and the server must serve the next call. Receipts are
 * checked against what the fixture really stored. "Never answers" runs
 * through an in-process connection on a manual clock for every tool, and through the
 * relay (12 s, overlapping the rest) for `codex_list_threads`.
 *
 * At the turn-start level (`--allow-turn-start --allow-reply-read`), one
 * relay per step of `codex_run` (config/read, thread/resume,
 * thread/queue/add, thread/queue/start), one for `codex_interrupt`
 * (turn/interrupt of a running turn), one per step of `codex_review`
 * (config/read, thread/resume, review/start) and one for `codex_steer`
 * (turn/steer of a running turn) take every fault at once; after each, the
 * same thread runs a turn to its end on a clean fixture and is released (the
 * fixture's holds and releases balance).
 */

import { untilChanged } from "../../testing/deadline.ts";
import { turnRig as wireTurns } from "../../testing/turn_rig.ts";
import assert from "assert";
import type { ServerContext } from "@modelcontextprotocol/server";
import { agentItem, FIXTURE_BIN, FixtureHome, thread } from "../../testing/fixture_home.ts";
import type { FixtureThread, Scenario, TurnStep } from "../../fixtures/scenario.ts";
import { silentLogger } from "../../src/core/log.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { SpawnConnection } from "../../src/connect/spawn/spawn_connection.ts";
import type { Capabilities } from "../../src/core/capabilities.ts";
import { allowedMethods } from "../../src/codex/methods.ts";
import { type CallContext, type Tool, toolText } from "../../src/host/tool.ts";
import { listThreadsTool } from "../../src/host/tools/list_threads_tool.ts";
import { queueMessageTool } from "../../src/host/tools/queue_message_tool.ts";
import { readReplyTool } from "../../src/host/tools/read_reply_tool.ts";
import { withdrawMessageTool } from "../../src/host/tools/withdraw_message_tool.ts";
import { waitReplyTool } from "../../src/host/tools/wait_reply_tool.ts";
import { WAIT_MARGIN_MS } from "../../src/turn/wait_pacing.ts";
import type { z } from "zod";
import {
  FAULT_CASES,
  FAULT_DOC,
  type FaultCase,
  faultTableMarkdown,
  type InterruptSeen,
  MATRIX_TOOLS,
  type MatrixTool,
  README_MARKERS,
  requestFaults,
  REVIEW_SITES,
  type ReviewSite,
  RUN_SITES,
  type RunSeen,
  type RunSite,
  type Seen,
  type SteerSeen,
  tablesOf,
} from "../../testing/fault_table.ts";
import { type CallResult, callTool } from "../../testing/call_tool.ts";
import {
  assertReceiptsTruthful,
  assertThreadsReleased,
  callToolManual,
  COMMAND_APPROVAL as APPROVAL,
  helpersFromLog,
  holdsAndReleases,
  isInputRequired,
  leakedSecrets,
  OWN_FINAL,
  READ_CLIENT_ID,
  registeredTools,
  type RelayProcess,
  resultText,
  SECRETS,
  type Seeded,
  seeded,
  startRelayProcess,
} from "./_reliability.ts";
import { DEFAULT_TURN_LIMITS } from "../../src/turn/turn_watchdog.ts";
import { turnMachinery } from "../../src/turn/turn_machinery.ts";
import { runTool } from "../../src/host/tools/run_tool.ts";
import { interruptTool } from "../../src/host/tools/interrupt_tool.ts";
import { reviewTool } from "../../src/host/tools/review_tool.ts";
import { steerTool } from "../../src/host/tools/steer_tool.ts";
import { ROOT } from "../../testing/relay.ts";
import { denoOnPathIsShim } from "../../testing/npm_shim.ts";
import { exists } from "../../testing/paths.ts";

// The turn-start level too: codex_withdraw_message is one of its tools.
const FLAGS = ["--allow-reply-read", "--allow-turn-start", "--log-level", "debug"];
/** Message text of the matrix; it must never appear in the relay's log. */
const TEXT_MARK = "fault-matrix-text";

const SUCCESS: Record<MatrixTool, Seen> = {
  codex_list_threads: { status: "ok" },
  codex_queue_message: { status: "queued", confirmedBy: "acknowledgement" },
  codex_withdraw_message: { status: "already_taken" },
  codex_read_reply: { status: "observed" },
  codex_wait_reply: { status: "observed" },
};

let calls = 0;

function argsFor(tool: MatrixTool, s: Seeded): Record<string, unknown> {
  switch (tool) {
    case "codex_list_threads":
      return { limit: 10 };
    case "codex_queue_message":
      return { threadId: s.main.id, text: `${TEXT_MARK} ${++calls}` };
    case "codex_withdraw_message":
    case "codex_read_reply":
      return { threadId: s.main.id, clientMessageId: READ_CLIENT_ID };
    case "codex_wait_reply":
      return { threadId: s.main.id, clientMessageId: READ_CLIENT_ID, timeoutSeconds: 1 };
  }
}

/** Asserts that `out` (structured content) is what the caller should see. */
function assertSeen(
  tool: MatrixTool,
  out: Record<string, unknown>,
  text: string,
  seen: Seen,
  s: Seeded,
  label: string,
): void {
  const got = `${label}: got ${JSON.stringify({ ...out, message: undefined })} / ${text}`;
  assert.equal(out.status, seen.status, got);
  assert.equal(out.reason, seen.reason, got);
  if (seen.confirmedBy) assert.equal(out.confirmedBy, seen.confirmedBy, got);
  assert.ok(text.length > 0, `${label}: a text rendering`);
  if (seen.reason) assert.ok(text.includes(seen.reason), `${label}: the text names the reason`);
  // At the turn-start level (FLAGS) codex_list_threads shows each thread's cwd by design.
  const secrets = Object.values(SECRETS).filter((v) =>
    tool !== "codex_list_threads" || v !== SECRETS.cwd
  );
  assert.deepEqual(leakedSecrets(out, secrets), [], `${label}: nothing outside the caller's scope`);
  assert.deepEqual(
    leakedSecrets(text, secrets),
    [],
    `${label}: nothing outside the caller's scope`,
  );
  if (tool === "codex_list_threads" && seen.status === "ok") {
    assert.ok((out.threads as { id: string }[]).some((t) => t.id === s.main.id), got);
  }
  if (tool === "codex_read_reply" || tool === "codex_wait_reply") {
    const texts = (out.replies as { text: string }[]).map((r) => r.text);
    assert.deepEqual(texts, seen.status === "observed" ? [OWN_FINAL] : [], got);
  }
}

function assertResult(
  tool: MatrixTool,
  result: CallResult,
  seen: Seen,
  s: Seeded,
  label: string,
): Record<string, unknown> {
  assert.notEqual(result.isError, true, `${label}: ${resultText(result)}`);
  const out = result.structuredContent;
  assert.ok(out, `${label}: structured content`);
  assertSeen(tool, out, resultText(result), seen, s, label);
  return out;
}

function faultScenario(base: Scenario, c: FaultCase, token: string): Scenario {
  if (c.provoke.kind === "request") {
    return { ...base, faults: requestFaults(c.provoke.action, token) };
  }
  if (c.provoke.kind === "startup") return { ...base, startup: c.provoke.startup };
  return base;
}

interface Rig {
  relay: RelayProcess;
  f: FixtureHome;
  tools: MatrixTool[];
  receipts: Record<string, unknown>[];
  /** Its helpers leave a child behind (the `orphan` fault): alive while they are, gone with them. */
  orphans?: boolean;
}

/**
 * Calls `tool` and checks the result; then that every process of the home
 * alive is a helper the relay started and has not reaped yet (its log): the
 * warm helper, or one being reaped. Shutdown leaves none (`closeRig`).
 */
async function callAndCheck(
  rig: Rig,
  s: Seeded,
  tool: MatrixTool,
  seen: Seen,
  label: string,
): Promise<void> {
  const result = await callTool(rig.relay.client, tool, argsFor(tool, s));
  const out = assertResult(tool, result, seen, s, label);
  if (tool === "codex_queue_message") rig.receipts.push(out);
  assertOnlyHelpers(rig, label);
}

/** Every live process of the rig's home is a helper the relay has not reaped yet. */
function assertOnlyHelpers(
  rig: { relay: RelayProcess; f: FixtureHome; orphans?: boolean },
  label: string,
): void {
  const live = new Set<number>();
  for (const line of rig.relay.transport.stderr.split("\n")) {
    const m = line.match(/^codex-relay debug (spawn|reaped) pid=(\d+)/);
    if (m?.[1] === "spawn") live.add(Number(m[2]));
    if (m?.[1] === "reaped") live.delete(Number(m[2]));
  }
  for (const pid of rig.f.alive()) {
    if (rig.orphans && live.size > 0) continue; // A live helper's orphan; closeRig sees it gone.
    assert.ok(live.has(pid), `${label}: process ${pid} is no helper of the relay`);
  }
}

/** After a fault: every other registered tool (and this one) works on a clean fixture. */
async function followUp(rig: Rig, s: Seeded, after: MatrixTool, label: string): Promise<void> {
  const i = rig.tools.indexOf(after);
  const next = rig.tools[(i + 1) % rig.tools.length];
  await callAndCheck(rig, s, next, SUCCESS[next], `${label}, then ${next}`);
}

async function closeRig(rig: Rig): Promise<void> {
  const { code, stderr } = await rig.relay.close();
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(rig.f.alive(), [], "no process is left after shutdown");
  assert.ok(!stderr.includes(TEXT_MARK), "message text never reaches the relay's log");
  assert.deepEqual(leakedSecrets(stderr), [], "stored text never reaches the relay's log");
  const helpers = helpersFromLog(stderr);
  assert.equal(helpers.spawned, helpers.reaped, "every helper spawned was reaped");
  assert.ok(helpers.peak <= 4, `at most 4 helpers at once (saw ${helpers.peak})`);
  await assertReceiptsTruthful(rig.f, rig.receipts);
}

/** Every tool with columns in the matrix, at any level. */
const COVERED: readonly string[] = [
  ...MATRIX_TOOLS,
  "codex_run",
  "codex_interrupt",
  "codex_review",
  "codex_steer",
  // Issue 42's tools: their faults are tests/reliability/job_faults_test.ts.
  "codex_usage",
  "codex_fork",
  "codex_compact",
];

async function rig(s: Seeded, env: (f: FixtureHome) => Record<string, string>): Promise<Rig> {
  const f = await FixtureHome.create(s.scenario);
  const relay = await startRelayProcess({ env: env(f), flags: FLAGS });
  const registered = await registeredTools(relay.client);
  for (const name of registered) {
    assert.ok(
      COVERED.includes(name),
      `${name} has no column in testing/fault_table.ts: add its expectations`,
    );
  }
  const tools = MATRIX_TOOLS.filter((t) => registered.includes(t));
  assert.ok(tools.includes("codex_list_threads") && tools.includes("codex_queue_message"));
  return { relay, f, tools, receipts: [] };
}

Deno.test("fault matrix: every fault gives each tool a clear status and reason, leaves no process, and the server serves on", async (t) => {
  // The warm helper lives across steps: the fixture reads each step's faults as they are written.
  const s = seeded();
  const case_ = (id: string) => FAULT_CASES.find((c) => c.id === id)!;
  const dirs: string[] = [];
  const tempDir = async () => {
    const d = await Deno.makeTempDir({ prefix: "codex-relay-path-" });
    dirs.push(d);
    return d;
  };
  const notProgramDir = await tempDir();
  await Deno.writeFile(`${notProgramDir}/codex`, new TextEncoder().encode("\x7fELF broken"), {
    mode: 0o755,
  });
  const missingDir = await tempDir();
  const install = (dir: string) =>
    Deno.writeTextFile(`${dir}/codex`, `#!/bin/sh\nexec '${FIXTURE_BIN}/codex' "$@"\n`, {
      mode: 0o755,
    });

  const neverScenario = { ...s.scenario, faults: requestFaults({ never: true }, "never") };
  const rigs = await Promise.all([
    rig(s, (f) => f.env),
    rig(s, (f) => ({ ...f.env, PATH: `${notProgramDir}:${f.path}` })),
    rig(s, (f) => ({ ...f.env, PATH: missingDir })),
    rig({ ...s, scenario: neverScenario }, (f) => f.env),
  ]);
  const [main, notProgram, missing, never] = rigs;
  let closing: PromiseSettledResult<void>[] = [];
  try {
    // 12 s of the RPC timeout, overlapping the rest of the matrix.
    const neverCall = callTool(never.relay.client, "codex_list_threads", { limit: 10 });

    for (const c of FAULT_CASES) {
      if (c.provoke.kind !== "request" && c.provoke.kind !== "startup") continue;
      if (c.id === "never_answers") continue;
      await t.step(`${c.id}: ${c.fault}`, async () => {
        if (c.provoke.kind === "startup") {
          await startupStep(s, c);
          return;
        }
        for (const tool of main.tools) {
          const token = `${c.id}-${tool}`;
          await main.f.write(faultScenario(s.scenario, c, token));
          await callAndCheck(main, s, tool, c.seen[tool], `${c.id}/${tool}`);
          assert.ok(await exists(`${main.f.home}/once/${token}`), `${c.id}/${tool}: the fault hit`);
          await main.f.write(s.scenario);
          await followUp(main, s, tool, `${c.id}/${tool}`);
        }
      });
    }

    await t.step("not_a_program: `codex` on PATH is not a program", async () => {
      const c = case_("not_a_program");
      for (const tool of notProgram.tools) {
        await callAndCheck(notProgram, s, tool, c.seen[tool], `${c.id}/${tool}`);
      }
      await install(notProgramDir);
      for (const tool of notProgram.tools) {
        await callAndCheck(notProgram, s, tool, SUCCESS[tool], `${c.id}, fixed, then ${tool}`);
      }
    });

    await t.step("missing: no `codex` on PATH, also after installing it later", async () => {
      const c = case_("missing");
      for (const tool of missing.tools) {
        await callAndCheck(missing, s, tool, c.seen[tool], `${c.id}/${tool}`);
      }
      await install(missingDir);
      for (const tool of missing.tools) {
        await callAndCheck(missing, s, tool, c.seen[tool], `${c.id}, installed, then ${tool}`);
      }
      assert.deepEqual(await missing.f.spawned(), [], "nothing was ever started");
    });

    await t.step(
      "never_answers: codex_list_threads through the relay times out at 12 s",
      async () => {
        const c = case_("never_answers");
        const tool = "codex_list_threads";
        assertResult(tool, await neverCall, c.seen[tool], s, `${c.id}/${tool}`);
        assert.deepEqual(never.f.alive(), [], "the silent helper was reaped");
        await never.f.write(s.scenario);
        await followUp(never, s, tool, `${c.id}/${tool}`);
      },
    );
  } finally {
    closing = await Promise.allSettled(rigs.map(closeRig));
    for (const r of rigs) await r.f.dispose();
    for (const d of dirs) await Deno.remove(d, { recursive: true });
  }
  for (const c of closing) if (c.status === "rejected") throw c.reason;
});

/**
 * A process-level fault on a relay of its own (its first helper starts with
 * the fault): every tool at once, then each again on a clean scenario; the
 * shutdown reaps everything (a stubborn helper with SIGKILL, its orphan with it).
 */
async function startupStep(s: Seeded, c: FaultCase): Promise<void> {
  if (c.provoke.kind !== "startup") return;
  const fresh = await rig({ ...s, scenario: faultScenario(s.scenario, c, c.id) }, (f) => f.env);
  fresh.orphans = c.provoke.startup.orphan;
  try {
    const results = await Promise.all(
      fresh.tools.map((tool) => callTool(fresh.relay.client, tool, argsFor(tool, s))),
    );
    fresh.tools.forEach((tool, i) => {
      const out = assertResult(tool, results[i], c.seen[tool], s, `${c.id}/${tool}`);
      if (tool === "codex_queue_message") fresh.receipts.push(out);
    });
    assertOnlyHelpers(fresh, c.id);
    await fresh.f.write(s.scenario);
    for (const tool of fresh.tools) {
      await callAndCheck(fresh, s, tool, SUCCESS[tool], `${c.id}, then ${tool}`);
    }
    await closeRig(fresh);
    // Behind an npm-style deno shim the helper's leader is Node, which dies at SIGTERM: the
    // fixture may be killed before it logs ignoring it; the group being gone is what holds there.
    if (c.provoke.startup.stubborn && !denoOnPathIsShim()) {
      const ignored = (await fresh.f.log()).filter((e) => e.event === "sigterm-ignored");
      assert.ok(ignored.length > 0, `${c.id}: SIGTERM was sent, ignored, then SIGKILL`);
    }
    if (c.provoke.startup.orphan) {
      const left = (await fresh.f.log()).filter((e) => e.event === "orphan");
      assert.ok(left.length > 0, `${c.id}: the helper left an orphan, now gone`);
    }
  } finally {
    await fresh.relay.close().catch(() => {});
    await fresh.f.dispose();
  }
}

const IN_PROCESS_TOOLS = {
  codex_list_threads: listThreadsTool,
  codex_queue_message: queueMessageTool,
  codex_withdraw_message: withdrawMessageTool,
  codex_read_reply: readReplyTool,
  codex_wait_reply: waitReplyTool,
} as unknown as Record<MatrixTool, Tool<z.ZodType, z.ZodType>>;

Deno.test("fault matrix: a helper that never answers times every tool out (in process, manual clock)", async () => {
  const s = seeded();
  const c = FAULT_CASES.find((x) => x.id === "never_answers")!;
  const f = await FixtureHome.create(s.scenario);
  const caps: Capabilities = { replyRead: true, turnStart: false };
  const receipts: Record<string, unknown>[] = [];
  try {
    for (const name of MATRIX_TOOLS) {
      const tool = IN_PROCESS_TOOLS[name];
      const barrier = `seen-${name}`;
      await f.write({ ...s.scenario, faults: requestFaults({ never: true }, name, barrier) });
      const seen = await f.barrier(barrier);
      const clock = new ManualClock();
      const connection = new SpawnConnection({
        allowlist: allowedMethods(caps),
        version: "0.0.0-test",
        env: f.env,
        clock,
        reap: { eofGraceMs: 300, termGraceMs: 300 },
      });
      // What the read and queue levels use of a call's context (the turn machinery stays idle).
      const machinery = turnMachinery({ connection, clock, log: silentLogger, readsReplies: true });
      const ctx = {
        connection,
        caps,
        clock,
        ...machinery,
        queuedHere: machinery.starts.queuedHere,
        signal: new AbortController().signal,
        progress: () => Promise.resolve(),
        log: silentLogger,
        mcp: { mcpReq: { requestState: () => undefined } } as unknown as ServerContext,
        clientModes: () => ({ form: false, url: false }),
        mintRound: () => Promise.reject(new Error("no input rounds here")),
      } as unknown as CallContext;
      const before = (await f.spawned()).length;
      const pending = tool.run(tool.inputSchema.parse(argsFor(name, s)), ctx);
      await seen.reached(); // The request is written and its timer armed.
      await seen.release();
      // One RPC may take 12 s; a wait's whole operation 1 s + its margin.
      const deadline = name === "codex_wait_reply" ? 1_000 + WAIT_MARGIN_MS : 12_000;
      clock.advance(deadline - 1);
      assert.equal(connection.stats.alive, 1, `${name}: not timed out before its deadline`);
      clock.advance(1);
      const out = await pending as Record<string, unknown>;
      const text = toolText(tool, out);
      assertSeen(name, out, text, c.seen[name], s, `never_answers/${name} (in process)`);
      if (name === "codex_queue_message") receipts.push(out);
      const silent = (await f.spawned())[before];
      if (name === "codex_wait_reply") {
        // Its RPC had what was left of a 1 s budget, not a whole RPC timeout: no sign of a hang.
        assert.ok(f.helperOf(silent) !== undefined, `${name}: the helper stays warm`);
      } else {
        // A whole RPC timeout: taken for hung and reaped (a queue call's check runs on a new one).
        assert.equal(f.helperOf(silent), undefined, `${name}: the silent helper was reaped`);
      }
      await connection.shutdown();
      assert.equal(connection.stats.alive, 0, `${name}: shutdown reaped every helper`);
      assert.deepEqual(f.alive(), [], `${name}: no process is left`);
    }
    await assertReceiptsTruthful(f, receipts);
  } finally {
    await f.dispose();
  }
});

// Protects: the fault table a user reads in docs/reliability.md is what the matrix above checks.
Deno.test("the fault table of docs/reliability.md is the matrix's expectation table", async () => {
  const readme = await Deno.readTextFile(`${ROOT}/${FAULT_DOC}`);
  const start = readme.indexOf(README_MARKERS.start);
  const end = readme.indexOf(README_MARKERS.end);
  assert.ok(start !== -1 && end > start, `${FAULT_DOC} has the fault table markers`);
  const shown = tablesOf(readme.slice(start + README_MARKERS.start.length, end));
  assert.deepEqual(
    shown,
    tablesOf(faultTableMarkdown()),
    `${FAULT_DOC}'s fault table is stale: replace it with the output of \`deno run scripts/fault_table.ts\``,
  );
});

// ------------------------------------------------------------- turn start

const TURN_FLAGS = ["--allow-turn-start", "--allow-reply-read", "--log-level", "debug"];
const TURN_FINAL = "turn final answer 3c9d";
const RUN_OK: RunSeen = {
  receipt: { status: "queued", confirmedBy: "acknowledgement" },
  turn: "completed",
};

/** Where a turn-start fault is put: a step of codex_run or codex_review, or a method of a running turn. */
type TurnSite =
  | { tool: "codex_run"; site: RunSite }
  | { tool: "codex_interrupt"; site: "turn/interrupt" }
  | { tool: "codex_review"; site: ReviewSite }
  | { tool: "codex_steer"; site: "turn/steer" };
const TURN_SITES: readonly TurnSite[] = [
  ...RUN_SITES.map((site) => ({ tool: "codex_run", site }) as const),
  { tool: "codex_interrupt", site: "turn/interrupt" },
  ...REVIEW_SITES.map((site) => ({ tool: "codex_review", site }) as const),
  { tool: "codex_steer", site: "turn/steer" },
];
/** A site's name in messages: the method, after the tool for the jobs. */
const siteName = (w: TurnSite) =>
  w.tool === "codex_run" || w.tool === "codex_interrupt" ? w.site : `${w.tool} ${w.site}`;
/** A review of the caller's uncommitted changes, inline on the thread. */
const reviewArgs = (threadId: string) => ({ threadId, target: "uncommitted", waitSeconds: 30 });

/** One thread per row: no row sees what an earlier one left. */
function turnThreads(where: TurnSite): Map<string, FixtureThread> {
  // Where the fault must hit a running turn, the turn waits on an approval meanwhile.
  const waits = where.site === "thread/queue/start" || where.site === "turn/interrupt" ||
    where.site === "turn/steer";
  const steps: TurnStep[] = [
    ...(waits ? [APPROVAL] : []),
    { item: agentItem("msg_turn_final", TURN_FINAL) },
    { end: "completed" },
  ];
  return new Map(
    FAULT_CASES.map((c) => [
      c.id,
      thread({
        name: `turn ${c.id}`,
        preview: SECRETS.preview,
        cwd: SECRETS.cwd,
        scripts: [steps],
      }),
    ]),
  );
}

interface TurnRig {
  where: TurnSite;
  /** {@linkcode siteName} of `where`. */
  site: string;
  relay: RelayProcess;
  f: FixtureHome;
  threads: Map<string, FixtureThread>;
  base: Scenario;
  receipts: Record<string, unknown>[];
}

async function turnRig(
  where: TurnSite,
  env: (f: FixtureHome) => Record<string, string> = (f) => f.env,
): Promise<TurnRig> {
  const threads = turnThreads(where);
  const base: Scenario = { threads: [...threads.values()] };
  const f = await FixtureHome.create(base);
  const relay = await startRelayProcess({
    env: env(f),
    flags: TURN_FLAGS,
    onElicit: () => ({ action: "accept", content: { decision: "accept" } }),
  });
  const registered = await registeredTools(relay.client);
  for (const name of registered) {
    assert.ok(COVERED.includes(name), `${name} has no column in testing/fault_table.ts`);
  }
  assert.ok(registered.includes("codex_run") && registered.includes("codex_interrupt"));
  return { where, site: siteName(where), relay, f, threads, base, receipts: [] };
}

/** Checks a codex_run (or codex_review) result against `seen`; keeps its receipt for the truthfulness check. */
function assertRun(
  rig: TurnRig,
  result: CallResult,
  seen: RunSeen,
  label: string,
  tool: "codex_run" | "codex_review" = "codex_run",
): Record<string, unknown> {
  assert.notEqual(result.isError, true, `${label}: ${resultText(result)}`);
  const out = result.structuredContent;
  assert.ok(out, `${label}: structured content`);
  const text = resultText(result);
  const got = `${label}: got ${JSON.stringify({ ...out, message: undefined })} / ${text}`;
  const receipt = out.receipt as Record<string, unknown>;
  assert.equal(receipt.status, seen.receipt.status, got);
  assert.equal(receipt.reason, seen.receipt.reason, got);
  if (seen.receipt.confirmedBy) assert.equal(receipt.confirmedBy, seen.receipt.confirmedBy, got);
  assert.equal((out.turn as { status: string } | null)?.status ?? null, seen.turn, got);
  assert.equal(out.reason, seen.reason, got);
  assert.equal(out.failureClass, seen.failureClass, got);
  if (seen.reason) assert.ok(text.includes(seen.reason), `${label}: the text names the reason`);
  if (seen.failureClass) {
    assert.ok(text.includes(seen.failureClass), `${label}: the text names the failure class`);
    assert.equal(out.retryable, false, got);
  }
  const replies = (out.replies as { text: string }[] | undefined)?.map((r) => r.text);
  if (seen.turn === "completed" && tool === "codex_review") {
    assert.ok((out.review as { text?: string } | undefined)?.text, `${label}: the review is read`);
  } else if (seen.turn === "completed") assert.deepEqual(replies, [TURN_FINAL], got);
  assert.deepEqual(leakedSecrets(out), [], `${label}: nothing outside the caller's scope`);
  assert.deepEqual(leakedSecrets(text), [], `${label}: nothing outside the caller's scope`);
  // A review stores no message (its clientMessageId is the relay's own): only a run's receipt
  // can be checked against the store.
  if (tool === "codex_run") rig.receipts.push(receipt);
  return out;
}

/** A result's structured content and text (it must have both), and how a failed check shows them. */
function shown(result: CallResult, label: string) {
  assert.notEqual(result.isError, true, `${label}: ${resultText(result)}`);
  const out = result.structuredContent;
  assert.ok(out, `${label}: structured content`);
  const text = resultText(result);
  return { out, text, got: `${label}: got ${JSON.stringify(out)} / ${text}` };
}

function assertSteer(result: CallResult, seen: SteerSeen, label: string): void {
  const { out, text, got } = shown(result, label);
  assert.equal(out.status, seen.status, got);
  assert.equal(out.reason, seen.reason, got);
  if (seen.reason) assert.ok(text.includes(seen.reason), `${label}: the text names the reason`);
  assert.deepEqual(leakedSecrets(out), [], `${label}: nothing outside the caller's scope`);
}

function assertInterrupt(result: CallResult, seen: InterruptSeen, label: string): void {
  const { out, text, got } = shown(result, label);
  assert.equal(out.status, seen.status, got);
  if (seen.turn) assert.equal((out.turn as { status: string }).status, seen.turn, got);
  assert.equal(out.failureClass, seen.failureClass, got);
  if (seen.failureClass) assert.ok(text.includes(seen.failureClass), got);
  assert.deepEqual(leakedSecrets(out), [], `${label}: nothing outside the caller's scope`);
}

/**
 * One row at one site: the faulted call(s), no process left, then the same
 * thread runs a turn to its end on a clean fixture and is released.
 */
async function turnCase(rig: TurnRig, c: FaultCase): Promise<void> {
  const t = rig.threads.get(c.id)!;
  const label = `${c.id}/${rig.site}`;
  const token = `${c.id}-turn`;
  const provoke = c.provoke;
  await rig.f.write(
    provoke.kind === "request"
      ? { ...rig.base, faults: [{ method: rig.where.site, once: token, action: provoke.action }] }
      : provoke.kind === "startup"
      ? { ...rig.base, startup: provoke.startup }
      : rig.base,
  );
  const args = () => ({ threadId: t.id, text: `${TEXT_MARK} ${++calls}`, waitSeconds: 30 });
  const client = rig.relay.client;
  const where = rig.where;
  if (where.tool === "codex_run") {
    assertRun(
      rig,
      await callTool(client, "codex_run", args()),
      c.turnStart.codex_run[where.site],
      label,
    );
  } else if (where.tool === "codex_review") {
    const reviewed = await callTool(client, "codex_review", reviewArgs(t.id));
    assertRun(rig, reviewed, c.turnStart.codex_review[where.site], label, "codex_review");
  } else {
    const interrupting = where.tool === "codex_interrupt";
    const first = await callToolManual(client, "codex_run", args());
    const ran = interrupting
      ? c.turnStart.codex_interrupt.status !== "not_running"
      : c.turnStart.codex_steer.status !== "not_running";
    if (!ran) {
      assert.ok(!isInputRequired(first), `${label}: no turn can start`);
      assertRun(rig, first, c.turnStart.codex_run["config/read"], `${label} (codex_run)`);
    } else {
      assert.ok(isInputRequired(first), `${label}: the turn runs, waiting on its approval`);
    }
    const spawned = (await rig.f.spawned()).length;
    if (interrupting) {
      const interrupted = await callTool(client, "codex_interrupt", { threadId: t.id });
      assertInterrupt(interrupted, c.turnStart.codex_interrupt, label);
      // Codex answered or failed at once: the relay did not wait out the grace
      // (a wait that ran out says so: "(timeout)" or "did not report the turn's end in time").
      assert.doesNotMatch(
        resultText(interrupted),
        /\(timeout\)|in time/,
        `${label}: codex_interrupt did not wait out the grace`,
      );
    } else {
      const text = `${TEXT_MARK} steer ${++calls}`;
      assertSteer(
        await callTool(client, "codex_steer", { threadId: t.id, text }),
        c.turnStart.codex_steer,
        label,
      );
      // The turn the steer found still waits on its approval (or died with its helper): end it.
      const ended = await callTool(client, "codex_interrupt", { threadId: t.id });
      assert.notEqual(ended.isError, true, `${label}: ${resultText(ended)}`);
    }
    assert.equal(
      (await rig.f.spawned()).length,
      spawned,
      `${label}: ${where.tool} spawns nothing`,
    );
  }
  if (provoke.kind === "request") {
    assert.ok(await exists(`${rig.f.home}/once/${token}`), `${label}: the fault hit`);
  }
  // As in startupStep: behind an npm-style shim the leader (Node) dies at SIGTERM first.
  if (provoke.kind === "startup" && provoke.startup.stubborn && !denoOnPathIsShim()) {
    const ignored = (await rig.f.log()).filter((e) => e.event === "sigterm-ignored");
    assert.ok(ignored.length > 0, `${label}: SIGTERM was sent, ignored, then SIGKILL`);
  }
  if (provoke.kind === "startup" && provoke.startup.orphan) {
    const left = (await rig.f.log()).filter((e) => e.event === "orphan");
    assert.ok(left.length > 0, `${label}: the helper left an orphan, now gone`);
  }
  // The warm helper (a queue call's check runs on it) and, while it lives, its orphan stay.
  // A steer answers before a turn host it broke is reaped (no call waits for that reap): its
  // processes are checked after the next run, which waits for a dying host before it holds one.
  if (where.tool !== "codex_steer") assertOnlyHelpers({ ...rig, orphans: true }, label);
  await rig.f.write(rig.base);
  assertRun(rig, await callTool(client, "codex_run", args()), RUN_OK, `${label}, then codex_run`);
  assertOnlyHelpers({ ...rig, orphans: true }, `${label}, then codex_run`);
  const held = (await holdsAndReleases(rig.f)).get(t.id);
  assert.ok(
    held && held.holds > 0 && held.holds === held.releases,
    `${label}: the thread was released (${JSON.stringify(held)})`,
  );
}

async function closeTurnRig(rig: TurnRig): Promise<void> {
  const { code, stderr } = await rig.relay.close();
  assert.equal(code, 0, `${rig.site}: the relay exits 0 on stdin EOF`);
  assert.deepEqual(rig.f.alive(), [], `${rig.site}: no process is left after shutdown`);
  assert.ok(!stderr.includes(TEXT_MARK), "message text never reaches the relay's log");
  assert.ok(!stderr.includes(TURN_FINAL), "reply text never reaches the relay's log");
  assert.deepEqual(leakedSecrets(stderr), [], "stored text never reaches the relay's log");
  const helpers = helpersFromLog(stderr);
  assert.equal(helpers.spawned, helpers.reaped, `${rig.site}: every helper spawned was reaped`);
  assert.ok(helpers.peak <= 4, `${rig.site}: at most 4 helpers at once (saw ${helpers.peak})`);
  await assertReceiptsTruthful(rig.f, rig.receipts);
  await assertThreadsReleased(rig.f, `${rig.site}: `);
}

Deno.test("fault matrix (turn start): every fault at each step of codex_run and codex_review, at codex_interrupt and at codex_steer gives a clear status and reason, leaves no process, releases the thread, and the server serves on", async (t) => {
  const dirs: string[] = [];
  const tempDir = async () => {
    const d = await Deno.makeTempDir({ prefix: "codex-relay-path-" });
    dirs.push(d);
    return d;
  };
  const notProgramDir = await tempDir();
  await Deno.writeFile(`${notProgramDir}/codex`, new TextEncoder().encode("\x7fELF broken"), {
    mode: 0o755,
  });
  const missingDir = await tempDir();
  const install = (dir: string) =>
    Deno.writeTextFile(`${dir}/codex`, `#!/bin/sh\nexec '${FIXTURE_BIN}/codex' "$@"\n`, {
      mode: 0o755,
    });
  const sites = await Promise.all(TURN_SITES.map((site) => turnRig(site)));
  const first = TURN_SITES[0];
  const notProgram = await turnRig(first, (f) => ({
    ...f.env,
    PATH: `${notProgramDir}:${f.path}`,
  }));
  const missing = await turnRig(first, (f) => ({ ...f.env, PATH: missingDir }));
  const rigs = [...sites, notProgram, missing];
  let closing: PromiseSettledResult<void>[] = [];
  try {
    for (const c of FAULT_CASES) {
      if (c.provoke.kind !== "request" && c.provoke.kind !== "startup") continue;
      if (c.id === "never_answers") continue; // SpawnConnection with a manual clock, below.
      // The sites have their own relay and fixture home: they run at once.
      await t.step(`${c.id}: ${c.fault}`, async () => {
        const results = await Promise.allSettled(sites.map((rig) => turnCase(rig, c)));
        for (const r of results) if (r.status === "rejected") throw r.reason;
      });
    }

    for (
      const [c, rig, fixed] of [
        [FAULT_CASES.find((x) => x.id === "not_a_program")!, notProgram, RUN_OK],
        [FAULT_CASES.find((x) => x.id === "missing")!, missing, undefined],
      ] as const
    ) {
      await t.step(`${c.id}: ${c.fault}`, async () => {
        const run = c.turnStart.codex_run;
        for (const site of RUN_SITES) {
          assert.deepEqual(run[site], run["config/read"], "the fault comes before any step");
        }
        for (const site of REVIEW_SITES) {
          assert.deepEqual(c.turnStart.codex_review[site], run["config/read"], "before any step");
        }
        const threadId = rig.threads.get(c.id)!.id;
        const args = () => ({ threadId, text: `${TEXT_MARK} ${++calls}` });
        const client = rig.relay.client;
        assertRun(rig, await callTool(client, "codex_run", args()), run["config/read"], c.id);
        assertInterrupt(
          await callTool(client, "codex_interrupt", { threadId }),
          c.turnStart.codex_interrupt,
          c.id,
        );
        const reviewed = await callTool(client, "codex_review", reviewArgs(threadId));
        assertRun(rig, reviewed, c.turnStart.codex_review["config/read"], c.id, "codex_review");
        assertSteer(
          await callTool(client, "codex_steer", { threadId, text: `${TEXT_MARK} steer` }),
          c.turnStart.codex_steer,
          c.id,
        );
        await install(c.id === "missing" ? missingDir : notProgramDir);
        assertRun(
          rig,
          await callTool(client, "codex_run", args()),
          fixed ?? run["config/read"],
          `${c.id}, ${fixed ? "fixed" : "installed"}, then codex_run`,
        );
        assertOnlyHelpers(rig, c.id);
        if (!fixed) assert.deepEqual(await rig.f.spawned(), [], "nothing was ever started");
      });
    }
  } finally {
    closing = await Promise.allSettled(rigs.map(closeTurnRig));
    for (const r of rigs) await r.f.dispose();
    for (const d of dirs) await Deno.remove(d, { recursive: true });
  }
  for (const c of closing) if (c.status === "rejected") throw c.reason;
});

Deno.test("fault matrix (turn start): a helper that never answers, at each step of codex_run and codex_review, at turn/interrupt and at turn/steer (in process, manual clock)", async () => {
  const c = FAULT_CASES.find((x) => x.id === "never_answers")!;
  const caps: Capabilities = { replyRead: true, turnStart: true };
  for (const where of TURN_SITES) {
    const t = turnThreads(where).get(c.id)!;
    const barrier = `never-${siteName(where).replaceAll(/[/ ]/g, "-")}`;
    const f = await FixtureHome.create({
      threads: [t],
      faults: [{ method: where.site, once: "never", action: { never: true }, barrier }],
    });
    const seen = await f.barrier(barrier);
    const { clock, connection, router, turns, starts } = wireTurns(f, {
      caps,
      connectionOnManualClock: true,
    });
    // What the turn-start tools use of a call's context (a client without elicitation).
    const ctx = {
      connection,
      caps,
      clock,
      turns,
      starts,
      router,
      queuedHere: starts.queuedHere,
      signal: new AbortController().signal,
      progress: () => Promise.resolve(),
      log: silentLogger,
      mcp: { mcpReq: { requestState: () => undefined } } as unknown as ServerContext,
      clientModes: () => ({ form: false, url: false }),
      mintRound: () => Promise.reject(new Error("no input rounds here")),
    } as unknown as CallContext;
    const label = `never_answers/${siteName(where)} (in process)`;
    try {
      let pending: Promise<unknown>;
      let deadline: number;
      if (where.tool === "codex_interrupt" || where.tool === "codex_steer") {
        const started = await starts.inThread(t.id, "never", ctx.signal);
        const runtime = started.runtime!;
        assert.ok(runtime, `${label}: the turn started`);
        await untilChanged(
          runtime,
          () => router.pendingFor(runtime).length > 0,
          `${label}: Codex's request reaching the router`,
        );
        if (where.tool === "codex_interrupt") {
          pending = interruptTool.run({ threadId: t.id }, ctx);
          deadline = DEFAULT_TURN_LIMITS.interruptGraceMs;
        } else {
          pending = steerTool.run({ threadId: t.id, text: "never" }, ctx);
          deadline = 12_000;
        }
      } else if (where.tool === "codex_review") {
        pending = reviewTool.run(reviewTool.inputSchema.parse(reviewArgs(t.id)), ctx);
        deadline = 12_000;
      } else {
        pending = runTool.run(
          runTool.inputSchema.parse({ threadId: t.id, text: "never", waitSeconds: 30 }),
          ctx,
        );
        deadline = 12_000;
      }
      let settled = false;
      void pending.then(() => (settled = true), () => (settled = true));
      await seen.reached(); // The request is written and its timer armed.
      await seen.release();
      clock.advance(deadline - 1);
      await f.requests(); // A round of I/O: a timeout that had fired would be handled by now.
      assert.equal(settled, false, `${label}: not timed out before ${deadline} ms`);
      clock.advance(1);
      const out = await pending as Record<string, unknown>;
      if (where.tool === "codex_interrupt") {
        const text = toolText(interruptTool, out as never);
        assertInterrupt(
          { structuredContent: out, content: [{ type: "text", text }] },
          c.turnStart.codex_interrupt,
          label,
        );
        assert.match(text, /did not confirm/, `${label}: the text says why`);
      } else if (where.tool === "codex_steer") {
        const text = toolText(steerTool, out as never);
        assertSteer(
          { structuredContent: out, content: [{ type: "text", text }] },
          c.turnStart.codex_steer,
          label,
        );
        // The turn still waits on its approval: end it as codex_interrupt would.
        const ending = interruptTool.run({ threadId: t.id }, ctx);
        clock.advance(DEFAULT_TURN_LIMITS.interruptGraceMs);
        await ending;
      } else {
        const tool = where.tool === "codex_review" ? reviewTool : runTool;
        const text = toolText(tool as Tool<z.ZodTypeAny, z.ZodTypeAny>, out as never);
        const rig = { receipts: [] as Record<string, unknown>[] } as unknown as TurnRig;
        const seenHere = where.tool === "codex_review"
          ? c.turnStart.codex_review[where.site]
          : c.turnStart.codex_run[where.site];
        assertRun(
          rig,
          { structuredContent: out, content: [{ type: "text", text }] },
          seenHere,
          label,
          where.tool,
        );
        await assertReceiptsTruthful(f, rig.receipts);
      }
      assert.equal(turns.lives().length, 0, `${label}: no runtime is left`);
      assert.equal(connection.stats.alive, 0, `${label}: every helper was reaped`);
      assert.deepEqual(f.alive(), [], `${label}: no process is left`);
      await assertThreadsReleased(f, `${label}: `);
    } finally {
      await turns.shutdown();
      await connection.shutdown();
      await f.dispose();
    }
  }
});
