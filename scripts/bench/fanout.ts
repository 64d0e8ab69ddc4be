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
  type Relay,
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

interface Peaks {
  ps: number;
  relay: number;
  servers: number;
  turnServers: number;
}

/**
 * Samples the process table and RSS every {@linkcode SAMPLE_MS} (lists'
 * helpers included) until `stop()`, idle and busy alike, so that both series
 * of lists share the sampler's own load.
 */
function sampler(home: string, relayPid: number): { peak: Peaks; stop: () => Promise<void> } {
  const peak: Peaks = { ps: 0, relay: 0, servers: 0, turnServers: 0 };
  let sampling = true;
  const loop = (async () => {
    while (sampling) {
      const { all, turns } = await fixturePids(home);
      const [ps, rssRelay, rssServers, rssTurns] = await Promise.all([
        countProcesses(home),
        rssKiB(relayPid),
        rssOf(all),
        rssOf([...turns]),
      ]);
      peak.ps = Math.max(peak.ps, ps);
      peak.relay = Math.max(peak.relay, rssRelay);
      peak.servers = Math.max(peak.servers, rssServers);
      peak.turnServers = Math.max(peak.turnServers, rssTurns);
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  })();
  return {
    peak,
    stop: () => {
      sampling = false;
      return loop;
    },
  };
}

interface Measured {
  idle: number[];
  during: number[];
  completed: number;
  wallMs: number;
  rssIdle: number;
  idlePs: number;
  peak: Peaks;
  turnServers: number;
}

/** Idle lists, then the turns started together with timed lists until the last one ends. */
async function measure(
  relay: Relay,
  home: string,
  threadIds: string[],
  samples: number,
): Promise<Measured> {
  const list = () => callTool(relay.client, "codex_list_threads", { limit: 10 });
  const relayPid = relay.transport.pid!;
  const sampling = sampler(home, relayPid);
  try {
    for (let i = 0; i < 2; i++) await list();
    const idle: number[] = [];
    for (let i = 0; i < samples; i++) idle.push(await timed(list));
    const rssIdle = await rssKiB(relayPid);
    const idlePs = sampling.peak.ps;
    const t0 = performance.now();
    let done = false;
    const runs = Promise.all(threadIds.map((threadId) =>
      relay.client.callTool({
        name: "codex_run",
        arguments: { threadId, text: "fan out", waitSeconds: 55 },
      }, { timeout: 90_000 }).then((r) => r.structuredContent as Structured)
    )).finally(() => (done = true));
    const during: number[] = [];
    while (!done) {
      const ms = await timed(list);
      if (!done) during.push(ms);
    }
    const outs = await runs;
    const wallMs = performance.now() - t0;
    const completed = outs.filter((o) =>
      (o.turn as Structured | undefined)?.status === "completed"
    ).length;
    const turnServers = (await fixturePids(home)).turns.size;
    return { idle, during, completed, wallMs, rssIdle, idlePs, peak: sampling.peak, turnServers };
  } finally {
    await sampling.stop();
  }
}

/** The figure of one mode's run. */
function fanoutFigure(mode: Mode, m: Measured): void {
  const ratio = median(m.during) / median(m.idle);
  const spawnGoal = mode.name === "spawn" ? m.turnServers === 1 : true;
  const mib = (kib: number) => (kib / 1024).toFixed(0);
  figures.push({
    id: `fanout_${mode.name}`,
    target: `fixture (${mode.name})`,
    what: `codex_list_threads while ${mode.turns} turns of ${TURN_MS / 1000} s run vs idle`,
    a: { label: "during", unit: "ms", samples: m.during.map(round2), median: median(m.during) },
    b: { label: "idle", unit: "ms", samples: m.idle.map(round2), median: median(m.idle) },
    ratio,
    goal: `≤ ${GOAL_LIST_RATIO}, all complete${
      mode.name === "spawn" ? ", 1 app-server for the turns" : ""
    }`,
    met: ratio <= GOAL_LIST_RATIO && m.completed === mode.turns && spawnGoal,
    note: `${m.completed} of ${mode.turns} turns completed in ${(m.wallMs / 1000).toFixed(1)} s; ` +
      `${m.turnServers} app-server process(es) ran the turns; ` +
      `peak fixture processes ${m.peak.ps} (idle ${m.idlePs})${
        mode.name === "daemon" ? " (proxy and daemon included)" : ""
      }; ` +
      `relay RSS ${mib(m.rssIdle)} idle, ${mib(m.peak.relay)} MiB peak; ` +
      `app-servers' RSS ${mib(m.peak.servers)} MiB at the peak (sum; ${
        mib(m.peak.turnServers)
      } MiB the one(s) running turns)`,
  });
  console.error(
    `bench: fanout ${mode.name}: list ${median(m.during).toFixed(0)} vs ${
      median(m.idle).toFixed(0)
    } ms idle; ${m.completed}/${mode.turns} completed; ${m.turnServers} turn app-server(s)`,
  );
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
  const relay = await startRelay(env, ["--allow-turn-start", "--allow-reply-read", ...mode.flags]);
  try {
    fanoutFigure(mode, await measure(relay, home, threads.map((t) => t.id), samples));
  } finally {
    await relay.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Both modes' fan-out figures. */
export async function benchFanout(options: Pick<Options, "samples">): Promise<void> {
  for (const mode of MODES) await benchMode(mode, options.samples);
}
