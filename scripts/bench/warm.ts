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
import { figures, median, pairFigure, round, singleFigure } from "./_stats.ts";
import { bareSdkArgs, SDK_GOALS } from "./start.ts";
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
  const sdk = await startRelay({}, [], bareSdkArgs());
  try {
    const timed = async (fn: () => Promise<unknown>) => {
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };
    const echo: number[] = [];
    const pair = await interleaveSelf(
      samples,
      () => timed(() => callTool(relay.client, "codex_list_threads", { limit: 20 })),
      async () => {
        const codex = await timed(() => raw.call(LIST.method, LIST.params));
        echo.push(await timed(() => callTool(sdk.client, "echo", { text: "warm" })));
        return codex;
      },
    );
    sdkShareFigure(t.name, pair, echo.slice(-samples));
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
    await sdk.close();
    await raw.close();
    await relay.close();
  }
}

/**
 * The relay's share of a warm call beyond what a bare MCP SDK v2 server's call costs: (relay's
 * `codex_list_threads` − the raw client's `thread/list`, both medians) against the bare server's
 * `echo` call (started as the relay is, `scripts/bench/bare_sdk_server.ts`); goal
 * {@linkcode SDK_GOALS}`.warmShareMs`.
 */
function sdkShareFigure(target: string, pair: { a: number[]; b: number[] }, echo: number[]) {
  const relayShare = median(pair.a) - median(pair.b);
  const extra = relayShare - median(echo);
  figures.push({
    id: "warm_share_vs_sdk",
    target,
    what:
      `warm call: the relay's share (tools/call − raw thread/list) vs a bare MCP SDK v2 server's call (+${
        extra.toFixed(2)
      } ms)`,
    a: {
      label: "relay's share",
      unit: "ms",
      samples: round(pair.a.map((x, i) => x - pair.b[i])),
      median: relayShare,
    },
    b: { label: "bare SDK server call", unit: "ms", samples: round(echo), median: median(echo) },
    ratio: relayShare / median(echo),
    goal: `≤ +${SDK_GOALS.warmShareMs} ms`,
    met: extra <= SDK_GOALS.warmShareMs,
  });
}
