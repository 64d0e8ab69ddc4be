// deno-lint-ignore-file no-console
/**
 * `deno task bench`: fan-out against the fixture. As many turns as the relay
 * runs at once (8 in spawn mode, 16 in daemon mode), each taking
 * {@linkcode TURN_MS}, started together by `codex_run`; meanwhile
 * `codex_list_threads` is timed one call after another and compared with its
 * idle time (goal ≤ 2×), and the process table and RSS are sampled: the fixture
 * processes alive at the peak, the app-servers that ran turns (goal in spawn
 * mode: 1), the relay's RSS and its app-servers' (`ps -o rss`, which is
 * /proc/<pid>/status VmRSS). Not a timed test: figures for docs/reliability.md.
 * @module
 */

import { agentItem, FIXTURE_BIN, thread } from "../../testing/fixture_home.ts";
import type { Options } from "./_options.ts";
import {
  callTool,
  countProcesses,
  rssKiB,
  run,
  startRelay,
  type Structured,
  TMP,
} from "./_relay.ts";
import { figures, median, timed } from "./_stats.ts";
import { HOME, PATH } from "./targets.ts";

/** How long each turn works (the fixture sleeps), so that the calls made meanwhile overlap it. */
export const TURN_MS = 5_000;

/** The goal: a list while the turns run within this many times its idle median. */
export const GOAL_LIST_RATIO = 2;

const FINAL = "fan-out done";

/** Pause between samples of the process table and RSS (a bench's pacing, not synchronization). */
const SAMPLE_MS = 100;

interface Mode {
  name: "spawn" | "daemon";
  turns: number;
  flags: string[];
}

const MODES: Mode[] = [
  { name: "spawn", turns: 8, flags: [] },
  { name: "daemon", turns: 16, flags: ["--app-server", "daemon"] },
];

/** Fixture processes (app-servers; in daemon mode also the proxy) logged as started, by pid. */
async function fixturePids(home: string): Promise<{ all: number[]; turns: Set<number> }> {
  const text = await Deno.readTextFile(`${home}/fixture-log.jsonl`).catch(() => "");
  const all: number[] = [];
  const turns = new Set<number>();
  for (const line of text.split("\n")) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (e.event === "spawn") all.push(e.pid);
    if (e.dir === "in" && e.msg?.method === "thread/resume") turns.add(e.pid);
  }
  return { all, turns };
}

/** The summed RSS (KiB) of those of `pids` alive now. */
async function rssOf(pids: number[]): Promise<number> {
  if (pids.length === 0) return 0;
  const out = await run("ps", ["-o", "rss=", "-p", pids.join(",")]);
  return out.split("\n").map((l) => Number(l.trim()) || 0).reduce((a, b) => a + b, 0);
}

async function benchMode(mode: Mode, samples: number): Promise<void> {
  const home = await Deno.makeTempDir({ dir: TMP, prefix: `fanout-${mode.name}-` });
  const threads = Array.from({ length: mode.turns }, (_, i) =>
    thread({
      name: `fan ${i}`,
      scripts: [[{ sleepMs: TURN_MS }, { item: agentItem(`msg_fan_${i}`, FINAL) }, {
        end: "completed",
      }]],
    }));
  await Deno.writeTextFile(`${home}/fixture.json`, JSON.stringify({ threads }));
  const env = { PATH: `${FIXTURE_BIN}:${PATH}`, HOME, CODEX_HOME: home };
  const relay = await startRelay(env, [
    "--allow-turn-start",
    "--allow-reply-read",
    ...mode.flags,
  ]);
  let sampling = true;
  try {
    const list = () => callTool(relay.client, "codex_list_threads", { limit: 10 });
    const relayPid = relay.transport.pid!;
    const peak = { ps: 0, relay: 0, servers: 0, turnServers: 0 };
    // The process table and RSS every SAMPLE_MS (lists' helpers included), idle and busy alike,
    // so that both series of lists share the sampler's own load.
    const sampler = (async () => {
      while (sampling) {
        const { all, turns } = await fixturePids(home);
        const [ps, rssRelay, rssServers, rssTurns] = await Promise.all([
          countProcesses(home),
          rssKiB(relayPid),
          rssOf(all),
          rssOf([...turns]),
        ]);
        peak.turnServers = Math.max(peak.turnServers, rssTurns);
        peak.ps = Math.max(peak.ps, ps);
        peak.relay = Math.max(peak.relay, rssRelay);
        peak.servers = Math.max(peak.servers, rssServers);
        await new Promise((r) => setTimeout(r, SAMPLE_MS));
      }
    })();
    for (let i = 0; i < 2; i++) await list();
    const idle: number[] = [];
    for (let i = 0; i < samples; i++) idle.push(await timed(list));
    const rssIdle = await rssKiB(relayPid);
    const idlePs = peak.ps;

    const t0 = performance.now();
    const runs = Promise.all(threads.map((t) =>
      relay.client.callTool({
        name: "codex_run",
        arguments: { threadId: t.id, text: "fan out", waitSeconds: 55 },
      }, { timeout: 90_000 }).then((r) => r.structuredContent as Structured)
    ));
    let done = false;
    let wallMs = 0;
    const finished = runs.then(() => (wallMs = performance.now() - t0), () => {}).finally(() =>
      done = true
    );
    const during: number[] = [];
    // Timed lists one after another until the last turn ends.
    while (!done) {
      const ms = await timed(list);
      if (!done) during.push(ms);
    }
    sampling = false;
    await sampler;
    const [peakPs, peakRelay, peakServers] = [peak.ps, peak.relay, peak.servers];
    await finished;
    const outs = await runs;
    const completed = outs.filter((o) =>
      (o.turn as Structured | undefined)?.status === "completed"
    ).length;
    const { turns } = await fixturePids(home);
    const ratio = median(during) / median(idle);
    const spawnGoal = mode.name === "spawn" ? turns.size === 1 : true;
    const mib = (kib: number) => (kib / 1024).toFixed(0);
    figures.push({
      id: `fanout_${mode.name}`,
      target: `fixture (${mode.name})`,
      what: `codex_list_threads while ${mode.turns} turns of ${TURN_MS / 1000} s run vs idle`,
      a: { label: "during", unit: "ms", samples: during.map(round2), median: median(during) },
      b: { label: "idle", unit: "ms", samples: idle.map(round2), median: median(idle) },
      ratio,
      goal: `≤ ${GOAL_LIST_RATIO}, all complete${
        mode.name === "spawn" ? ", 1 app-server for the turns" : ""
      }`,
      met: ratio <= GOAL_LIST_RATIO && completed === mode.turns && spawnGoal,
      note: `${completed} of ${mode.turns} turns completed in ${(wallMs / 1000).toFixed(1)} s; ` +
        `${turns.size} app-server process(es) ran the turns; ` +
        `peak fixture processes ${peakPs} (idle ${idlePs})${
          mode.name === "daemon" ? " (proxy and daemon included)" : ""
        }; ` +
        `relay RSS ${mib(rssIdle)} idle, ${mib(peakRelay)} MiB peak; ` +
        `app-servers' RSS ${mib(peakServers)} MiB at the peak (sum; ${
          mib(peak.turnServers)
        } MiB the one(s) running turns)`,
    });
    console.error(
      `bench: fanout ${mode.name}: list ${median(during).toFixed(0)} vs ${
        median(idle).toFixed(0)
      } ms idle; ${completed}/${mode.turns} completed; ${turns.size} turn app-server(s)`,
    );
  } finally {
    sampling = false;
    await relay.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Both modes' fan-out figures. */
export async function benchFanout(options: Pick<Options, "samples">): Promise<void> {
  for (const mode of MODES) await benchMode(mode, options.samples);
}
