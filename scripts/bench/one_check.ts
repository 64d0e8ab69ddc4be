/**
 * `deno task bench` (issue 46): one answer check's bound. The costliest checks known
 * (testing/hostile_checks.ts: an `anyOf` fan-out to a 511-unit pattern, a 2,000-key answer, ...)
 * vs a plain check, in ms of CPU, in one child started with the relay's own V8 flags (the
 * linear-time regexp engine), rounds interleaved; the goal is the design's 1 s of CPU.
 * @module
 */

import { RELAY_V8_FLAGS } from "../../src/install/launch.ts";
import { CACHED_ONLY } from "../../testing/child_env.ts";
import { figures, median, round } from "./_stats.ts";

/** The design's bound on one answer check, in ms of CPU. */
export const ONE_CHECK_GOAL_MS = 1_000;

export async function benchOneCheck(samples: number): Promise<void> {
  const root = new URL("../..", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      CACHED_ONLY,
      "--quiet",
      RELAY_V8_FLAGS,
      "--config",
      `${root}deno.json`,
      `${root}scripts/bench/_one_check.ts`,
      String(samples),
    ],
    stdin: "null",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`the one-check child failed (exit ${out.code})`);
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  if (!r.linear) throw new Error("the one-check child ran without the linear-time regexp engine");
  const costliest = median(r.costliest);
  const plain = median(r.plain);
  figures.push({
    id: "one_check",
    target: "in process",
    what: "one answer check: the costliest known (CPU) vs a plain one",
    a: { label: "costliest", unit: "ms", samples: round(r.costliest), median: costliest },
    b: { label: "plain", unit: "ms", samples: round(r.plain), median: plain },
    ratio: costliest / plain,
    goal: `costliest ≤ ${ONE_CHECK_GOAL_MS} ms of CPU`,
    met: Math.max(...r.costliest) <= ONE_CHECK_GOAL_MS,
    note: `costliest: ${r.which}; slowest of ${r.costliest.length} rounds ${
      Math.max(...r.costliest).toFixed(0)
    } ms`,
  });
}
