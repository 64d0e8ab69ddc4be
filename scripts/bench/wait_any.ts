// deno-lint-ignore-file no-console
/**
 * `deno task bench`: the wait-any lag (issue 23). Five turns of this relay
 * run at once against the fixture app-server, each held at its own barrier;
 * one `codex_wait_reply {messages: [5], until: "any"}` follows them; once the
 * wait reported its first progress (it is following), the first turn's
 * barrier is released (the turn stores its final answer and ends) and the
 * time until the wait returns is the lag. Median over 5 runs (after a
 * warm-up run), in spawn and in daemon mode. Not a timed test.
 * @module
 */

import { agentItem, type Barrier, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { startRelay, type Structured, TMP } from "./_relay.ts";
import { figures, singleFigure } from "./_stats.ts";

/** Turns followed by one wait. */
export const WAIT_ANY_TURNS = 5;
/** Measured runs per mode (after one warm-up run). */
export const WAIT_ANY_RUNS = 5;
/** Goals of issue 23, in ms. */
export const WAIT_ANY_GOALS = Object.freeze({ daemon: 250, spawn: 300 });

const MODES = [
  { name: "spawn" as const, flags: [] as string[] },
  { name: "daemon" as const, flags: ["--app-server", "daemon"] },
];

/** The barrier of thread `t`. */
const gate = (t: number) => `go_${t}`;

/** Measures both modes and records the two figures. */
export async function benchWaitAny(): Promise<void> {
  for (const mode of MODES) {
    const { lags, turns } = await lagRuns(mode.flags);
    console.error(`bench: wait-any ${mode.name}: ${lags.map((x) => x.toFixed(0)).join(", ")} ms`);
    singleFigure(
      `wait_any_lag_${mode.name}`,
      "fixture",
      `${mode.name}: wait-any lag, first of ${turns} turns completes → codex_wait_reply {messages} returns`,
      lags,
      WAIT_ANY_GOALS[mode.name],
    );
    if (turns < WAIT_ANY_TURNS) {
      figures.at(-1)!.note =
        `${turns} turns, not ${WAIT_ANY_TURNS}: a further codex_run was busy ` +
        "(each turn holds one of the spawn helpers here)";
    }
  }
}

/** One run's relay: its fixture, its threads, how many turns fit at once. */
interface Rig {
  client: Client;
  f: FixtureHome;
  threads: { id: string }[];
  turns: number;
}

/**
 * A warm-up run, then {@linkcode WAIT_ANY_RUNS} measured ones, each on a
 * fresh fixture and relay (a fixture process plays a thread's script once).
 */
async function lagRuns(flags: string[]): Promise<{ lags: number[]; turns: number }> {
  let turns = WAIT_ANY_TURNS;
  const lags: number[] = [];
  await Deno.mkdir(TMP, { recursive: true });
  for (let r = 0; r <= WAIT_ANY_RUNS; r++) {
    const threads = Array.from({ length: WAIT_ANY_TURNS }, (_, t) =>
      thread({
        scripts: [[
          { barrier: gate(t) },
          { item: agentItem(`msg_${t}`, `Answer ${t}.`) },
          { end: "completed" },
        ]],
      }));
    const f = await FixtureHome.create({ threads }, TMP);
    const relay = await startRelay(f.env, ["--allow-turn-start", "--allow-reply-read", ...flags]);
    const rig: Rig = { client: relay.client, f, threads, turns };
    try {
      const lag = await oneRun(rig);
      if (r > 0) lags.push(lag);
      turns = rig.turns;
    } finally {
      await relay.close();
      await f.dispose();
    }
  }
  return { lags, turns };
}

type Client = Awaited<ReturnType<typeof startRelay>>["client"];

async function call(
  client: Client,
  name: string,
  args: Structured,
  onprogress?: () => void,
): Promise<Structured> {
  const result = await client.callTool({ name, arguments: args }, {
    timeout: 120_000,
    ...(onprogress ? { onprogress } : {}),
  });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Structured;
}

/** Runs a turn on each thread (fewer when one is busy), measures one wait-any, ends every turn. */
async function oneRun(rig: Rig): Promise<number> {
  const { client, f } = rig;
  const barriers: Barrier[] = [];
  const messages: Structured[] = [];
  for (const [t, th] of rig.threads.slice(0, rig.turns).entries()) {
    const barrier = await f.barrier(gate(t));
    const run = await call(client, "codex_run", { threadId: th.id, text: "go", waitSeconds: 1 });
    if (run.reason === "busy" && t > 0) {
      rig.turns = t;
      break;
    }
    if ((run.turn as Structured)?.status !== "running") throw new Error(JSON.stringify(run));
    await barrier.reached();
    barriers.push(barrier);
    messages.push({
      threadId: th.id,
      clientMessageId: (run.receipt as Structured).clientMessageId,
    });
  }
  let released: number | undefined;
  let first: Promise<void> | undefined;
  const out = await call(client, "codex_wait_reply", { messages, timeoutSeconds: 55 }, () => {
    if (first) return;
    // The wait follows them all: let the first turn finish now.
    released = performance.now();
    first = barriers[0].release();
  });
  const returned = performance.now();
  await first;
  if (out.done !== 1 || released === undefined) throw new Error(JSON.stringify(out));
  for (const b of barriers.slice(1)) await b.release();
  const all = await call(client, "codex_wait_reply", { messages, until: "all" });
  if (all.done !== messages.length) throw new Error(JSON.stringify(all));
  return returned - released;
}
