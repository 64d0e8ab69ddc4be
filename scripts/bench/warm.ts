// deno-lint-ignore-file no-console
/**
 * The spawn-mode call figures of `deno task bench` (one interleaved run each):
 *
 * - first call: a relay just started (`mod.ts serve`, spawn mode), its first
 *   `codex_list_threads` (it spawns and initializes the warm helper) vs the
 *   raw client's spawn, `initialize` and `thread/list`; starting and closing
 *   either side is not timed;
 * - warm call: a relay's `codex_list_threads` once its warm helper is up vs
 *   the raw client's `thread/list` on a connection it keeps open. The
 *   relay's share is the difference of the medians.
 * @module
 */

import { openRaw } from "../raw_client.ts";
import { callTool, startRelay } from "./_relay.ts";
import { figures, median, pairFigure, singleFigure } from "./_stats.ts";
import { PATH, type Target } from "./targets.ts";

/** Goals: a warm spawn-mode call's median, in ms. */
export const WARM_GOALS = Object.freeze({ warmCallMs: 20 });

const LIST = { method: "thread/list", params: { limit: 20 } } as const;

/** Two warm-up pairs, then `n` pairs A B A B ...; each side times itself (setup untimed). */
async function interleaveSelf(
  n: number,
  a: () => Promise<number>,
  b: () => Promise<number>,
): Promise<{ a: number[]; b: number[] }> {
  for (let i = 0; i < 2; i++) {
    await a();
    await b();
  }
  const out = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < n; i++) {
    out.a.push(await a());
    out.b.push(await b());
  }
  return out;
}

async function firstRelayCall(t: Target): Promise<number> {
  const relay = await startRelay({ ...t.env, PATH: `${t.binDir}:${PATH}` }, []);
  try {
    const t0 = performance.now();
    await callTool(relay.client, "codex_list_threads", { limit: 20 });
    return performance.now() - t0;
  } finally {
    await relay.close();
  }
}

async function firstRawCall(t: Target): Promise<number> {
  const t0 = performance.now();
  const raw = await openRaw(t.command, t.env);
  try {
    await raw.call(LIST.method, LIST.params);
    return performance.now() - t0;
  } finally {
    await raw.close();
  }
}

/** The spawn-mode call figures against `t`. */
export async function benchSpawnCalls(t: Target, samples: number): Promise<void> {
  pairFigure(
    "spawn_first_call",
    t.name,
    "spawn mode, first call: a new relay's first `codex_list_threads` vs raw client spawn, initialize, thread/list",
    ["first tools/call", "raw client, new app-server"],
    await interleaveSelf(samples, () => firstRelayCall(t), () => firstRawCall(t)),
  );
  const relay = await startRelay({ ...t.env, PATH: `${t.binDir}:${PATH}` }, []);
  const raw = await openRaw(t.command, t.env);
  try {
    const timed = async (fn: () => Promise<unknown>) => {
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };
    const pair = await interleaveSelf(
      samples,
      () => timed(() => callTool(relay.client, "codex_list_threads", { limit: 20 })),
      () => timed(() => raw.call(LIST.method, LIST.params)),
    );
    const share = median(pair.a) - median(pair.b);
    pairFigure(
      "spawn_warm_call",
      t.name,
      `spawn mode, warm call: \`codex_list_threads\` vs raw client on an open connection, thread/list; relay's share ${
        share.toFixed(2)
      } ms`,
      ["warm tools/call", "raw client, open connection"],
      pair,
    );
    singleFigure(
      "spawn_warm_call_ms",
      t.name,
      "spawn mode, warm call: `codex_list_threads` one tools/call",
      pair.a,
      WARM_GOALS.warmCallMs,
    );
    const warm = figures.at(-1)!;
    warm.note = `relay's share ${share.toFixed(2)} ms over the raw client on an open connection`;
  } finally {
    await raw.close();
    await relay.close();
  }
}
