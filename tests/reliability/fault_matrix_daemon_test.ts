/**
 * The fault matrix of Codex's own jobs in daemon mode (issue 39): every row of
 * `testing/fault_table_daemon.ts` (a fault of the daemon's app-server, or of
 * the `codex app-server proxy` that carries the connection) on `review/start`
 * of `codex_review`, `turn/steer` of `codex_steer` and `turn/start` of a
 * structured run, through `mod.ts serve --app-server daemon` against the
 * fixture. Each call gives the table's status and reason, names the reason in
 * its text and returns nothing outside the caller's scope; after each, the
 * same thread runs a turn to its end (the relay dials the daemon again when
 * the proxy is gone); at the end the relay exits 0 and leaves no process.
 * One relay and fixture per site; the sites run at once.
 */

import assert from "assert";
import { agentItem, FixtureHome, thread } from "../../testing/fixture_home.ts";
import type { FixtureThread, Scenario, TurnStep } from "../../fixtures/scenario.ts";
import { type CallResult, callTool } from "../../testing/call_tool.ts";
import { VERDICT_SCHEMA } from "../../testing/verdict_schema.ts";
import {
  DAEMON_CASES,
  DAEMON_RUN_OK,
  DAEMON_SITES,
  type DaemonCase,
  type DaemonSeen,
} from "../../testing/fault_table_daemon.ts";
import type { RunSeen, SteerSeen } from "../../testing/fault_table.ts";
import {
  callToolManual,
  COMMAND_APPROVAL as APPROVAL,
  isInputRequired,
  leakedSecrets,
  type RelayProcess,
  resultText,
  SECRETS,
  startRelayProcess,
} from "./_reliability.ts";
import { exists } from "../../testing/paths.ts";

const FLAGS = ["--allow-turn-start", "--allow-reply-read", "--app-server", "daemon"];
const VERDICT = '{"verdict":"pass","issues":[],"count":1}';
type Site = (typeof DAEMON_SITES)[number];

interface Rig {
  site: Site;
  relay: RelayProcess;
  f: FixtureHome;
  threads: Map<string, FixtureThread>;
  base: Scenario;
}

async function rig(site: Site): Promise<Rig> {
  const steps: TurnStep[] = [
    ...(site.tool === "codex_steer" ? [APPROVAL] : []),
    { item: agentItem("msg_final", VERDICT) },
    { end: "completed" },
  ];
  const threads = new Map(DAEMON_CASES.map((c) => [
    c.id,
    thread({
      name: `daemon ${c.id}`,
      preview: SECRETS.preview,
      cwd: SECRETS.cwd,
      scripts: [steps],
    }),
  ]));
  const base: Scenario = { threads: [...threads.values()] };
  const f = await FixtureHome.create(base);
  const relay = await startRelayProcess({
    env: f.env,
    flags: FLAGS,
    onElicit: () => ({ action: "accept", content: { decision: "accept" } }),
  });
  return { site, relay, f, threads, base };
}

/** What a run's result shows, in the table's terms. */
function runSeen(result: CallResult, label: string): RunSeen {
  assert.notEqual(result.isError, true, `${label}: ${resultText(result)}`);
  const out = result.structuredContent as Record<string, unknown>;
  const receipt = out.receipt as { status: string; reason?: string; confirmedBy?: string };
  const turn = (out.turn as { status: string } | null)?.status ?? null;
  const seen: RunSeen = {
    receipt: {
      status: receipt.status,
      ...(receipt.reason ? { reason: receipt.reason } : {}),
      ...(receipt.confirmedBy ? { confirmedBy: receipt.confirmedBy as "acknowledgement" } : {}),
    },
    turn: turn as RunSeen["turn"],
    ...(out.reason ? { reason: out.reason as string } : {}),
    ...(out.failureClass ? { failureClass: out.failureClass as string } : {}),
  };
  const text = resultText(result);
  if (seen.reason) assert.ok(text.includes(seen.reason), `${label}: the text names the reason`);
  assert.deepEqual(leakedSecrets(out), [], `${label}: nothing outside the caller's scope`);
  assert.deepEqual(leakedSecrets(text), [], `${label}: nothing outside the caller's scope`);
  return seen;
}

function steerSeen(result: CallResult, label: string): SteerSeen {
  assert.notEqual(result.isError, true, `${label}: ${resultText(result)}`);
  const out = result.structuredContent as { status: SteerSeen["status"]; reason?: string };
  if (out.reason) assert.ok(resultText(result).includes(out.reason), `${label}: names the reason`);
  assert.deepEqual(leakedSecrets(out), [], `${label}: nothing outside the caller's scope`);
  return { status: out.status, ...(out.reason ? { reason: out.reason } : {}) };
}

/** The faulted call at `r.site` for row `c`; what it showed. */
async function faulted(r: Rig, c: DaemonCase, threadId: string): Promise<RunSeen | SteerSeen> {
  const client = r.relay.client;
  const label = `${c.id}/${r.site.method}`;
  switch (r.site.tool) {
    case "codex_review": {
      const args = { threadId, target: "uncommitted", waitSeconds: 30 };
      return runSeen(await callTool(client, "codex_review", args), label);
    }
    case "structured": {
      const args = { threadId, text: "structured", outputSchema: VERDICT_SCHEMA, waitSeconds: 30 };
      const result = await callTool(client, "codex_run", args);
      const seen = runSeen(result, label);
      const structured = (result.structuredContent as { structured?: { valid: boolean } })
        .structured;
      if (seen.turn === "completed") assert.equal(structured?.valid, true, label);
      return seen;
    }
    case "codex_steer": {
      const first = await callToolManual(client, "codex_run", { threadId, text: "go" });
      assert.ok(isInputRequired(first), `${label}: the turn runs, waiting on its approval`);
      const steered = steerSeen(
        await callTool(client, "codex_steer", { threadId, text: "steer" }),
        label,
      );
      // The turn the steer found still waits on its approval (or is gone with the proxy): end it.
      const ended = await callTool(client, "codex_interrupt", { threadId });
      assert.notEqual(ended.isError, true, `${label}: ${resultText(ended)}`);
      return steered;
    }
  }
}

/** One row at one site: the faulted call, then the same thread runs a turn to its end. */
async function row(r: Rig, c: DaemonCase): Promise<RunSeen | SteerSeen> {
  const t = r.threads.get(c.id)!;
  const token = `${c.id}-daemon`;
  const fault = { method: r.site.method, once: token, action: c.provoke.action };
  await r.f.write(
    c.provoke.kind === "app_server"
      ? { ...r.base, faults: [fault as NonNullable<Scenario["faults"]>[number]] }
      : {
        ...r.base,
        proxy: { faults: [fault as NonNullable<NonNullable<Scenario["proxy"]>["faults"]>[number]] },
      },
  );
  const seen = await faulted(r, c, t.id);
  assert.ok(await exists(`${r.f.home}/once/${token}`), `${c.id}/${r.site.method}: the fault hit`);
  await r.f.write(r.base);
  const next = await callTool(r.relay.client, "codex_run", { threadId: t.id, text: "after" });
  assert.deepEqual(
    runSeen(next, `${c.id}/${r.site.method}, then codex_run`),
    DAEMON_RUN_OK,
    `${c.id}/${r.site.method}: the next run on the thread runs to its end`,
  );
  return seen;
}

Deno.test("fault matrix (daemon): every daemon or proxy fault at codex_review, codex_steer and a structured run gives the table's status and reason, and the thread runs on", async () => {
  const rigs = await Promise.all(DAEMON_SITES.map(rig));
  const seen: Record<string, Partial<DaemonSeen>> = {};
  try {
    for (const c of DAEMON_CASES) {
      const results = await Promise.all(rigs.map((r) => row(r, c)));
      seen[c.id] = Object.fromEntries(rigs.map((r, i) => [r.site.tool, results[i]]));
    }
  } finally {
    for (const r of rigs) {
      const { code } = await r.relay.close();
      assert.equal(code, 0, `${r.site.method}: the relay exits 0 on stdin EOF`);
      assert.deepEqual(r.f.alive(), [], `${r.site.method}: no process is left after shutdown`);
      await r.f.dispose();
    }
  }
  assert.deepEqual(seen, Object.fromEntries(DAEMON_CASES.map((c) => [c.id, c.seen])));
});
