// deno-lint-ignore-file no-console
/**
 * `deno task bench`: memory per `codex_run` against real Codex offline (issue 46, item 3): the
 * relay's RSS after {@linkcode REAL_RUNS} sequential runs on one thread (spawn mode, the
 * Responses mock as the model) vs after the first {@linkcode REAL_WARMUP}. Standalone:
 * `deno run -A scripts/bench/real_runs.ts [runs] [every]` prints RSS every `every` runs.
 * @module
 */

import { startMockResponses } from "../../testing/mock_responses.ts";
import { createCodexHome } from "../../testing/codex_home.ts";
import { callTool, rssKiB, startRelay, TMP } from "./_relay.ts";
import { figures } from "./_stats.ts";
import { PATH } from "./targets.ts";

/** Runs before the first reading. */
export const REAL_WARMUP = 30;

/** Runs in all (the 1,000). */
export const REAL_RUNS = 1_000;

/** The goal: RSS after all runs at most this times RSS after the warm-up. */
export const REAL_RUNS_GOAL = 1.25;

/**
 * `runs` sequential `codex_run`s on one thread against the real Codex at `path` (a new thread
 * in the workspace first); `onSample(n, rssKiB)` after run 0, the warm-up and every `every`.
 */
export async function realRuns(
  path: string,
  runs: number,
  every: number,
  onSample: (n: number, kib: number) => void,
): Promise<void> {
  await Deno.mkdir(TMP, { recursive: true });
  const mock = await startMockResponses();
  const home = await createCodexHome({ mockUrl: mock.url, parentDir: TMP });
  const binDir = path.slice(0, path.lastIndexOf("/"));
  const env = { PATH: `${binDir}:${PATH}`, HOME: home.home, CODEX_HOME: home.codexHome };
  try {
    const relay = await startRelay(
      { ...env, LANG: "C.UTF-8" },
      ["--allow-turn-start", "--allow-reply-read"],
    );
    try {
      const pid = relay.transport.pid!;
      let threadId: string | undefined;
      onSample(0, await rssKiB(pid));
      for (let n = 1; n <= runs; n++) {
        const where = threadId ? { threadId } : { cwd: home.workspace };
        const out = await callTool(relay.client, "codex_run", {
          ...where,
          text: `run ${n} NOECHO`,
          waitSeconds: 50,
        });
        const turn = out.turn as { status?: string } | undefined;
        if (turn?.status !== "completed") throw new Error(`run ${n}: ${JSON.stringify(out)}`);
        threadId = out.threadId as string;
        if (n === REAL_WARMUP || n % every === 0) onSample(n, await rssKiB(pid));
      }
    } finally {
      await relay.close();
    }
  } finally {
    await mock.close();
    await home.cleanup();
  }
}

/** The figure: RSS after {@linkcode REAL_RUNS} real runs vs after {@linkcode REAL_WARMUP}. */
export async function benchRealRuns(path: string, runs = REAL_RUNS): Promise<void> {
  const samples = new Map<number, number>();
  const t0 = performance.now();
  await realRuns(path, runs, 100, (n, kib) => {
    samples.set(n, kib / 1024);
    console.error(`bench: real runs: ${n}: RSS ${(kib / 1024).toFixed(1)} MiB`);
  });
  const warm = samples.get(REAL_WARMUP)!;
  const after = samples.get(runs)!;
  const ratio = after / warm;
  const curve = [...samples].filter(([n]) => n > 0 && n % 200 === 0)
    .map(([n, mib]) => `${n}: ${mib.toFixed(0)}`).join(", ");
  figures.push({
    id: "real_runs_rss",
    target: "real Codex",
    what: `relay RSS after ${runs} codex_run (spawn, one thread) vs after the first ${REAL_WARMUP}`,
    a: { label: "after", unit: "MiB", samples: [after], median: after },
    b: { label: "first 30", unit: "MiB", samples: [warm], median: warm },
    ratio,
    goal: `≤ ${REAL_RUNS_GOAL}`,
    met: ratio <= REAL_RUNS_GOAL,
    note: `MiB after n runs: ${curve}; ${Math.round((performance.now() - t0) / 1000)} s`,
  });
}

if (import.meta.main) {
  const runs = Number(Deno.args[0] ?? REAL_RUNS);
  const every = Number(Deno.args[1] ?? 50);
  const { findCodex } = await import("./targets.ts");
  const found = await findCodex();
  if (!("path" in found)) throw new Error(found.skip);
  const t0 = performance.now();
  await realRuns(found.path, runs, every, (n, kib) => {
    const s = Math.round((performance.now() - t0) / 1000);
    console.log(JSON.stringify({ n, rssMiB: +(kib / 1024).toFixed(1), s }));
  });
}
