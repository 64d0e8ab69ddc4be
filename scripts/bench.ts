// deno-lint-ignore-file no-console
/**
 * `deno task bench`: what the relay costs over talking to `codex app-server`
 * directly. Every figure is a ratio from one interleaved run (A B A B ...,
 * after two warm-up pairs) and uses medians; printed as a markdown table and
 * written to `bench/results.json`.
 *
 * - spawn-mode calls (`scripts/bench/warm.ts`): a new relay's first
 *   `codex_list_threads` vs the minimal raw client (`scripts/raw_client.ts`)
 *   spawning, initializing and listing; a warm relay's call vs the raw client
 *   on an open connection, with the relay's share;
 * - relay: one `tools/call` through `mod.ts serve --allow-reply-read` (one
 *   SDK client connection, reused; its warm helper up) vs the raw client
 *   replaying exactly the app-server requests the relay sent for that call
 *   (recorded once through a `tee` wrapper) on its own open connection; for
 *   list, queue, read and one wait cycle;
 * - start: relay start to the `initialize` response vs a bare Deno script's
 *   start to its first answer, and the relay's idle RSS;
 * - projector: `matchUserItem` + `projectReplies` on a 1 MiB items page vs
 *   `JSON.parse` of that frame;
 * - 100 concurrent `codex_queue_message` calls: wall time, peak helpers,
 *   peak RSS, receipts accounted for against the fixture's store;
 * - sustained load: the relay's RSS after 2,000 mixed calls (4 at a time)
 *   vs after a warm-up of 200, started as users start it (with the V8 flag
 *   of `src/install/launch.ts`), and the same without the flag for contrast;
 * - schemas (`scripts/bench/schemas.ts`, issue 39): RSS over 2,000 mixed calls
 *   with 300 structured runs and 500 refused schemas, and a run whose answer
 *   makes its pattern backtrack vs a plain one; one answer check (issue 46): the
 *   costliest known vs a plain one, in ms of CPU (`scripts/bench/one_check.ts`).
 *
 * Targets: the fixture app-server (`fixtures/bin/codex`), and real Codex when
 * it is installed in `.codex-npm/` (what CI installs) or given as `CODEX_BIN`
 * within the bench permission set.
 *
 * - daemon (`scripts/bench/daemon.ts`, `daemon_calls.ts`): `serve --app-server
 *   daemon` vs raw WebSocket clients of the daemon (through a proxy, and
 *   straight on its control socket), same RPCs, for list, queue, read, in one
 *   round-robin run with the relay's share per round, the proxy hop, the
 *   relay's CPU per call and a call after a quiet spell; the wait lag in
 *   daemon and in spawn mode.
 *
 * - wait-any lag (`scripts/bench/wait_any.ts`, fixture): five turns of the
 *   relay, one `codex_wait_reply {messages}`; the first turn completes → the
 *   wait returns; median of 5 runs, spawn and daemon mode.
 *
 * - memory per run (`scripts/bench/real_runs.ts`, real Codex offline, the Responses mock):
 *   the relay's RSS after 1,000 sequential `codex_run`s (spawn mode) vs after the first 30.
 *
 * - fan-out (`scripts/bench/fanout.ts`): 8 turns at once in spawn mode and 16
 *   in daemon mode against the fixture: all complete, a list meanwhile vs idle,
 *   processes at the peak (spawn: 1 app-server for the turns), RSS.
 *
 * Options: `--samples N` (pairs per figure, default 9, at least 7),
 * `--no-codex` (fixture only), `--daemon` (only real Codex: spawn-mode relay
 * figures and the daemon figures), `--quick` (the edit loop: the per-call
 * figures, start and projector, 7 samples; no wait lags, sustained load,
 * fan-out, wait-any or concurrent calls), `--only spawn|daemon|sustained|memory|schemas|wait-any|fanout`
 * (just that section: `spawn` the spawn-mode call figures of each target,
 * `daemon` the daemon figures).
 * @module
 */

import denoJson from "../deno.json" with { type: "json" };
import { type Options, parseOptions } from "./bench/_options.ts";
import { benchWaitAny } from "./bench/wait_any.ts";
import { benchDaemon } from "./bench/daemon.ts";
import { benchFanout } from "./bench/fanout.ts";
import { daemonKit } from "./bench/daemon_kit.ts";
import { BENCH_DIR, run, TMP } from "./bench/_relay.ts";
import { figures, fmt } from "./bench/_stats.ts";
import { benchConcurrentQueue, benchTarget } from "./bench/calls.ts";
import { benchSpawnCalls } from "./bench/warm.ts";
import { benchProjector } from "./bench/projector.ts";
import { benchStart } from "./bench/start.ts";
import { benchSustained } from "./bench/sustained.ts";
import { benchSchemas } from "./bench/schemas.ts";
import { benchRealRuns } from "./bench/real_runs.ts";
import { codexTarget, findCodex, fixtureTarget, type Target } from "./bench/targets.ts";

interface Machine {
  nproc: number;
  arch: string;
  os: string;
  cpu: string;
  deno: string;
}

async function machine(): Promise<Machine> {
  const lscpu = await run("lscpu", []);
  const cpu = lscpu.match(/^Model name:\s*(.+)$/m)?.[1]?.trim() ?? "unknown";
  return {
    nproc: navigator.hardwareConcurrency,
    arch: Deno.build.arch,
    os: Deno.build.os,
    cpu,
    deno: Deno.version.deno,
  };
}

function table(): string {
  const rows = [["figure", "target", "A (median)", "B (median)", "A / B", "goal"]];
  for (const f of figures) {
    const a = Number.isNaN(f.a.median) ? f.note ?? "n/a" : `${fmt(f.a.median)} ${f.a.unit}`;
    const b = f.b ? `${fmt(f.b.median)} ${f.b.unit}` : "";
    const ratio = f.ratio === undefined ? "" : f.ratio.toFixed(2);
    const goal = f.goal ? `${f.goal}: ${f.met ? "met" : "NOT met"}` : "";
    rows.push([f.what, f.target, a, b, ratio, goal]);
  }
  const widths = rows[0].map((_, i) => Math.max(3, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  const notes = figures.filter((f) => f.note && !Number.isNaN(f.a.median))
    .map((f) => `- ${f.what} (${f.target}): ${f.note}`);
  return [
    line(rows[0]),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.slice(1).map(line),
    ...(notes.length ? ["", ...notes] : []),
  ].join("\n");
}

async function benchAll(options: Options, targets: Target[]): Promise<void> {
  if (options.only !== "sustained") {
    for (const t of targets) await benchTarget(t, options);
    const found = options.codex ? await findCodex() : undefined;
    if (found && "path" in found) await benchDaemon(daemonKit(options), found.path);
  }
  if (!options.daemonOnly && options.only !== "sustained") {
    await benchStart(options);
    await benchProjector(options);
    if (!options.quick) {
      await benchConcurrentQueue(targets[0]);
      await benchWaitAny();
    }
  }
  if (options.quick) return;
  if (!options.daemonOnly) await benchSustained(targets[0]);
  if (!options.daemonOnly && options.only !== "sustained") await benchMemory(options);
  if (!options.daemonOnly && options.only !== "sustained") await benchSchemas(options.samples);
  if (!options.daemonOnly && options.only !== "sustained") await benchFanout(options);
}

/** Memory per `codex_run` against real Codex offline (beside the fixture's sustained figure). */
async function benchMemory(options: Options): Promise<void> {
  const found = options.codex ? await findCodex() : undefined;
  if (found && "path" in found) await benchRealRuns(found.path);
}

async function main(): Promise<void> {
  const options = parseOptions(Deno.args);
  await Deno.mkdir(TMP, { recursive: true });
  const started = new Date();
  const targets: Target[] = options.daemonOnly ? [] : [await fixtureTarget()];
  let codexNote = "not run (--no-codex)";
  try {
    if (options.codex) {
      const found = await findCodex();
      if ("path" in found) {
        targets.push(await codexTarget(found.path));
        codexNote = (await run(found.path, ["--version"])).trim();
      } else {
        codexNote = `skipped: ${found.skip}`;
      }
    }
    if (options.only === "start") await benchStart(options);
    else if (options.only === "wait-any") await benchWaitAny();
    else if (options.only === "fanout") await benchFanout(options);
    else if (options.only === "schemas") await benchSchemas(options.samples);
    else if (options.only === "memory") await benchMemory(options);
    else if (options.only === "spawn") {
      for (const t of targets) await benchSpawnCalls(t, options.samples);
    } else if (options.only === "daemon") {
      const found = options.codex ? await findCodex() : undefined;
      if (found && "path" in found) await benchDaemon(daemonKit(options), found.path);
    } else await benchAll(options, targets);
  } finally {
    for (const t of targets) await t.cleanup().catch(() => {});
  }
  const info = { ...(await machine()), codex: codexNote };
  const results = {
    date: started.toISOString(),
    machine: info,
    samples: options.samples,
    method: "interleaved A B A B after 2 warm-up pairs; medians; ratio = median(A) / median(B)",
    figures,
  };
  await Deno.writeTextFile(`${BENCH_DIR}/results.json`, JSON.stringify(results, null, 2) + "\n");
  console.log(
    `codex-relay ${denoJson.version} bench, ${started.toISOString().slice(0, 10)}: ` +
      `${info.nproc} × ${info.cpu} (${info.arch}), Deno ${info.deno}, codex: ${codexNote}; ` +
      `${options.samples} samples per figure\n`,
  );
  console.log(table());
  console.log(`\nJSON: bench/results.json`);
}

if (import.meta.main) await main();
