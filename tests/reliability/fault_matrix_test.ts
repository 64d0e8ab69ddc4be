/**
 * The fault matrix: every fixture fault against every tool registered at the
 * level under test, through the relay (`mod.ts serve --allow-reply-read`).
 * Each call must give the status and reason of `fault_table.ts`, name the
 * reason in its text, return no text outside the caller's scope, leave no
 * process behind, and the server must serve the next call. Receipts are
 * checked against what the fixture really stored. "Never answers" runs
 * through the owner with a manual clock for every tool, and through the
 * relay (12 s, overlapping the rest) for `codex_list_threads`.
 */

import assert from "assert";
import type { ServerContext } from "@modelcontextprotocol/server";
import { FIXTURE_BIN, FixtureHome } from "../_fixture.ts";
import type { Scenario } from "../../fixtures/scenario.ts";
import { silentLogger } from "../../src/log.ts";
import { ManualClock } from "../../src/owner/clock.ts";
import { Owner } from "../../src/owner/owner.ts";
import { allowedMethods, type Capabilities } from "../../src/host/capabilities.ts";
import type { CallContext, Tool } from "../../src/host/tool.ts";
import { listThreads } from "../../src/host/tools/list_threads.ts";
import { queueMessageTool } from "../../src/host/tools/queue_message.ts";
import { readReplyTool } from "../../src/host/tools/read_reply.ts";
import { waitReplyTool } from "../../src/host/tools/wait_reply.ts";
import { WAIT_MARGIN_MS } from "../../src/reply/wait_reply.ts";
import type { z } from "zod";
import {
  FAULT_CASES,
  type FaultCase,
  faultTableMarkdown,
  MATRIX_TOOLS,
  type MatrixTool,
  README_MARKERS,
  requestFaults,
  type Seen,
  tableRows,
} from "./fault_table.ts";
import {
  assertReceiptsTruthful,
  type CallResult,
  callTool,
  helpersFromLog,
  leakedSecrets,
  OWN_FINAL,
  READ_CLIENT_ID,
  registeredTools,
  type RelayProcess,
  resultText,
  type Seeded,
  seeded,
  startRelayProcess,
} from "./_reliability.ts";
import { ROOT } from "../_relay.ts";

const FLAGS = ["--allow-reply-read", "--log-level", "debug"];
/** Message text of the matrix; it must never appear in the relay's log. */
const TEXT_MARK = "fault-matrix-text";

const SUCCESS: Record<MatrixTool, Seen> = {
  codex_list_threads: { status: "ok" },
  codex_queue_message: { status: "queued", confirmedBy: "acknowledgement" },
  codex_read_reply: { status: "observed" },
  codex_wait_reply: { status: "observed" },
};

let calls = 0;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

function argsFor(tool: MatrixTool, s: Seeded): Record<string, unknown> {
  switch (tool) {
    case "codex_list_threads":
      return { limit: 10 };
    case "codex_queue_message":
      return { threadId: s.main.id, text: `${TEXT_MARK} ${++calls}` };
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
  assert.deepEqual(leakedSecrets(out), [], `${label}: nothing outside the caller's scope`);
  assert.deepEqual(leakedSecrets(text), [], `${label}: nothing outside the caller's scope`);
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
}

/** Calls `tool` and checks the result; then that no process of the home is alive. */
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
  assert.deepEqual(rig.f.alive(), [], `${label}: no process is left`);
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

async function rig(s: Seeded, env: (f: FixtureHome) => Record<string, string>): Promise<Rig> {
  const f = await FixtureHome.create(s.scenario);
  const relay = await startRelayProcess({ env: env(f), flags: FLAGS });
  const registered = await registeredTools(relay.client);
  for (const name of registered) {
    assert.ok(
      (MATRIX_TOOLS as readonly string[]).includes(name),
      `${name} has no column in tests/reliability/fault_table.ts: add its expectations`,
    );
  }
  const tools = MATRIX_TOOLS.filter((t) => registered.includes(t));
  assert.ok(tools.includes("codex_list_threads") && tools.includes("codex_queue_message"));
  return { relay, f, tools, receipts: [] };
}

Deno.test("fault matrix: every fault gives each tool a clear status and reason, leaves no process, and the server serves on", async (t) => {
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
          // A process-level fault hits every helper: the tools run at once.
          await main.f.write(faultScenario(s.scenario, c, c.id));
          const results = await Promise.all(
            main.tools.map((tool) => callTool(main.relay.client, tool, argsFor(tool, s))),
          );
          main.tools.forEach((tool, i) => {
            const out = assertResult(tool, results[i], c.seen[tool], s, `${c.id}/${tool}`);
            if (tool === "codex_queue_message") main.receipts.push(out);
          });
          assert.deepEqual(main.f.alive(), [], `${c.id}: no process is left`);
          if (c.provoke.startup.stubborn) {
            const ignored = (await main.f.log()).filter((e) => e.event === "sigterm-ignored");
            assert.ok(
              ignored.length >= main.tools.length,
              "SIGTERM was sent, ignored, then SIGKILL",
            );
          }
          await main.f.write(s.scenario);
          for (const tool of main.tools) {
            await callAndCheck(main, s, tool, SUCCESS[tool], `${c.id}, then ${tool}`);
          }
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

const OWNER_TOOLS = {
  codex_list_threads: listThreads,
  codex_queue_message: queueMessageTool,
  codex_read_reply: readReplyTool,
  codex_wait_reply: waitReplyTool,
} as unknown as Record<MatrixTool, Tool<z.ZodType, z.ZodType>>;

Deno.test("fault matrix: a helper that never answers times every tool out (owner, manual clock)", async () => {
  const s = seeded();
  const c = FAULT_CASES.find((x) => x.id === "never_answers")!;
  const f = await FixtureHome.create(s.scenario);
  const caps: Capabilities = { replyRead: true, turnStart: false };
  const receipts: Record<string, unknown>[] = [];
  try {
    for (const name of MATRIX_TOOLS) {
      const tool = OWNER_TOOLS[name];
      const barrier = `seen-${name}`;
      await f.write({ ...s.scenario, faults: requestFaults({ never: true }, name, barrier) });
      const seen = await f.barrier(barrier);
      const clock = new ManualClock();
      const owner = new Owner({
        allowlist: allowedMethods(caps),
        version: "0.0.0-test",
        env: f.env,
        clock,
        reap: { eofGraceMs: 300, termGraceMs: 300 },
      });
      // What the read and queue levels use of a call's context (the rest is turn-start's).
      const ctx = {
        owner,
        caps,
        clock,
        signal: new AbortController().signal,
        progress: () => Promise.resolve(),
        log: silentLogger,
        mcp: {} as ServerContext,
        clientModes: () => ({ form: false, url: false }),
        mintRound: () => Promise.reject(new Error("no input rounds here")),
      } as unknown as CallContext;
      const pending = tool.run(tool.inputSchema.parse(argsFor(name, s)), ctx);
      await seen.reached(); // The request is written and its timer armed.
      await seen.release();
      // One RPC may take 12 s; a wait's whole operation 1 s + its margin.
      const deadline = name === "codex_wait_reply" ? 1_000 + WAIT_MARGIN_MS : 12_000;
      clock.advance(deadline - 1);
      assert.equal(owner.stats.alive, 1, `${name}: not timed out before its deadline`);
      clock.advance(1);
      const out = await pending as Record<string, unknown>;
      const text = tool.render(out);
      assertSeen(name, out, text, c.seen[name], s, `never_answers/${name} (owner)`);
      if (name === "codex_queue_message") receipts.push(out);
      assert.equal(owner.stats.alive, 0, `${name}: the silent helper was reaped`);
      assert.deepEqual(f.alive(), [], `${name}: no process is left`);
    }
    await assertReceiptsTruthful(f, receipts);
  } finally {
    await f.dispose();
  }
});

Deno.test("the README's fault table is the matrix's expectation table", async () => {
  const readme = await Deno.readTextFile(`${ROOT}/README.md`);
  const start = readme.indexOf(README_MARKERS.start);
  const end = readme.indexOf(README_MARKERS.end);
  assert.ok(start !== -1 && end > start, "README.md has the fault table markers");
  const shown = tableRows(readme.slice(start + README_MARKERS.start.length, end));
  assert.deepEqual(
    shown,
    tableRows(faultTableMarkdown()),
    "README.md's fault table is stale: replace it with the output of `deno run scripts/fault_table.ts`",
  );
});
