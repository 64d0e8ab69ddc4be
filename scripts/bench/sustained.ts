// deno-lint-ignore-file no-console
/**
 * `deno task bench`: Sustained load: the relay's RSS after 2,000 mixed calls vs after a warm-up.
 * @module
 */

import { relayArgs } from "../../testing/relay.ts";
import { RELAY_V8_FLAGS } from "../../src/install/launch.ts";
import { callTool, rssKiB, startRelay, SUCCESS, TOOLS } from "./_relay.ts";
import { figures } from "./_stats.ts";
import { PATH, type Target, toolArgs } from "./targets.ts";

export const SUSTAINED_WARMUP = 200;

export const SUSTAINED_CALLS = 2_000;

export const SUSTAINED_GOAL = 1.2;

/** RSS of one relay over a warm-up and then {@linkcode SUSTAINED_CALLS} mixed calls, 4 at a time. */
export async function sustainedRun(
  t: Target,
  capped: boolean,
): Promise<{ warmKiB: number; afterKiB: number; peakKiB: number; calls: number; ms: number }> {
  const args = relayArgs(["--allow-reply-read"]).filter((a) => capped || a !== RELAY_V8_FLAGS);
  const relay = await startRelay({ ...t.env, PATH: `${t.binDir}:${PATH}` }, [], args);
  const pid = relay.transport.pid!;
  let n = 0;
  let peakKiB = 0;
  const batch = async (count: number) => {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const tool = TOOLS[(n + next++) % TOOLS.length];
        const out = await callTool(relay.client, tool, toolArgs(tool, t));
        if (out.status !== SUCCESS[tool]) throw new Error(`${tool}: ${JSON.stringify(out)}`);
        if (next % 100 === 0) peakKiB = Math.max(peakKiB, await rssKiB(pid));
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    n += count;
  };
  try {
    await batch(SUSTAINED_WARMUP);
    const warmKiB = await rssKiB(pid);
    const t0 = performance.now();
    await batch(SUSTAINED_CALLS);
    const ms = performance.now() - t0;
    const afterKiB = await rssKiB(pid);
    return { warmKiB, afterKiB, peakKiB: Math.max(peakKiB, afterKiB), calls: n, ms };
  } finally {
    await relay.close();
  }
}

export async function benchSustained(t: Target): Promise<void> {
  const capped = await sustainedRun(t, true);
  const uncapped = await sustainedRun(t, false);
  const mib = (kib: number) => kib / 1024;
  const ratio = capped.afterKiB / capped.warmKiB;
  figures.push({
    id: "sustained_rss",
    target: t.name,
    what:
      `relay RSS after ${SUSTAINED_CALLS} mixed calls vs after a warm-up of ${SUSTAINED_WARMUP} (${RELAY_V8_FLAGS})`,
    a: {
      label: "after",
      unit: "MiB",
      samples: [mib(capped.afterKiB)],
      median: mib(capped.afterKiB),
    },
    b: {
      label: "warm-up",
      unit: "MiB",
      samples: [mib(capped.warmKiB)],
      median: mib(capped.warmKiB),
    },
    ratio,
    goal: `≤ ${SUSTAINED_GOAL}`,
    met: ratio <= SUSTAINED_GOAL,
    note: `capped: peak ${mib(capped.peakKiB).toFixed(0)} MiB, ${capped.calls} calls in all, ` +
      `${Math.round(capped.ms / 1000)} s for the ${SUSTAINED_CALLS}; without the flag: ` +
      `${mib(uncapped.warmKiB).toFixed(0)} → ${mib(uncapped.afterKiB).toFixed(0)} MiB (ratio ${
        (uncapped.afterKiB / uncapped.warmKiB).toFixed(2)
      }, peak ${mib(uncapped.peakKiB).toFixed(0)} MiB)`,
  });
  console.error(`bench: ${t.name} sustained load: ratio ${ratio.toFixed(2)}`);
}

// ------------------------------------------------------------------ report
