// deno-lint-ignore-file no-console
/**
 * `deno task bench`: Relay start to the `initialize` answer vs a bare Deno script, and the idle RSS.
 * @module
 */

import { relayArgs, ROOT } from "../../testing/relay.ts";
import type { Options } from "./_options.ts";
import { rssKiB, TMP } from "./_relay.ts";
import { figures, GOAL_RSS_MIB, median, pairFigure, round } from "./_stats.ts";
import { HOME, PATH } from "./targets.ts";
import { cachedOnly, denoChildEnv } from "../../testing/child_env.ts";
import { INITIALIZED, initializeRequest } from "../../testing/raw_relay.ts";

export async function firstAnswer(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  settleMs: number,
): Promise<{ ms: number; rssKiB: number }> {
  const t0 = performance.now();
  const child = new Deno.Command(cmd, {
    args: cachedOnly(args),
    env: denoChildEnv(env),
    clearEnv: true,
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const answer = async (id: number) => {
    for (;;) {
      const nl = buffer.indexOf("\n");
      if (nl !== -1) {
        const m = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (m.id === id) return;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`${cmd} exited before answering`);
      buffer += value;
    }
  };
  const send = (m: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
  await send(initializeRequest(1));
  await answer(1);
  const ms = performance.now() - t0;
  await send(INITIALIZED);
  await send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
  await answer(2);
  await new Promise((r) => setTimeout(r, settleMs));
  const rss = await rssKiB(child.pid);
  await writer.close();
  await reader.cancel();
  await child.status;
  return { ms, rssKiB: rss };
}

export const BARE_SERVER = `
const reader = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
let buffer = "";
const out = (id) => Deno.stdout.write(new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id, result: {} }) + "\\n"));
for (;;) {
  const { value, done } = await reader.read();
  if (done) break;
  buffer += value;
  let nl;
  while ((nl = buffer.indexOf("\\n")) !== -1) {
    const m = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    if (m.id !== undefined) await out(m.id);
  }
}
`;

/** The bare MCP SDK v2 server (`scripts/bench/bare_sdk_server.ts`). */
const BARE_SDK_SERVER = `${ROOT}/scripts/bench/bare_sdk_server.ts`;

/** The bare MCP SDK v2 server's command line: the relay's (its Deno flags, config, -P), its file. */
export function bareSdkArgs(): string[] {
  return relayArgs([]).map((a) => a.endsWith("/mod.ts") ? BARE_SDK_SERVER : a).slice(0, -1);
}

/**
 * Issue 47's goals against a bare SDK v2 server started the same way: start, idle RSS, and
 * the relay's share of a warm call beyond Codex's time and what the bare server's call costs.
 */
export const SDK_GOALS = Object.freeze({ startRatio: 1.2, idleRssMiB: 8, warmShareMs: 1 });

/** Start → `initialize` and idle RSS, relay vs the bare SDK server, against {@linkcode SDK_GOALS}. */
function sdkFigures(
  relayRuns: { ms: number; rssKiB: number }[],
  sdkRuns: { ms: number; rssKiB: number }[],
): void {
  pairFigure(
    "start_vs_sdk",
    "-",
    "relay vs bare MCP SDK v2 server (same Deno flags and -P): spawn to the initialize answer",
    ["relay", "bare SDK server"],
    { a: relayRuns.map((r) => r.ms), b: sdkRuns.map((r) => r.ms) },
    SDK_GOALS.startRatio,
  );
  const rss = relayRuns.map((r) => r.rssKiB / 1024);
  const sdkRss = sdkRuns.map((r) => r.rssKiB / 1024);
  const extra = median(rss) - median(sdkRss);
  figures.push({
    id: "idle_rss_vs_sdk",
    target: "-",
    what: `relay vs bare MCP SDK v2 server: idle RSS (+${extra.toFixed(1)} MiB)`,
    a: { label: "relay", unit: "MiB", samples: round(rss), median: median(rss) },
    b: { label: "bare SDK server", unit: "MiB", samples: round(sdkRss), median: median(sdkRss) },
    ratio: median(rss) / median(sdkRss),
    goal: `≤ +${SDK_GOALS.idleRssMiB} MiB`,
    met: extra <= SDK_GOALS.idleRssMiB,
  });
}

export async function benchStart(options: Options): Promise<void> {
  const bare = `${TMP}/bare_server.js`;
  await Deno.writeTextFile(bare, BARE_SERVER);
  const env = { PATH, HOME };
  const relay = () => firstAnswer("deno", relayArgs([]), env, 500);
  const bareRun = () =>
    firstAnswer("deno", ["run", "--quiet", "--no-prompt", "--no-config", bare], env, 500);
  const sdk = () => firstAnswer("deno", bareSdkArgs(), env, 500);
  const relayRuns: { ms: number; rssKiB: number }[] = [];
  const bareRuns: { ms: number; rssKiB: number }[] = [];
  const sdkRuns: { ms: number; rssKiB: number }[] = [];
  for (let i = 0; i < 2; i++) {
    await relay();
    await bareRun();
    await sdk();
  }
  for (let i = 0; i < options.samples; i++) {
    relayRuns.push(await relay());
    bareRuns.push(await bareRun());
    sdkRuns.push(await sdk());
  }
  sdkFigures(relayRuns, sdkRuns);
  await Deno.remove(bare);
  pairFigure(
    "start_to_initialize",
    "-",
    "relay vs bare Deno script: spawn to the initialize answer",
    ["relay (deno run -P mod.ts serve)", "bare Deno script"],
    { a: relayRuns.map((r) => r.ms), b: bareRuns.map((r) => r.ms) },
  );
  const rss = relayRuns.map((r) => r.rssKiB / 1024);
  const bareRss = bareRuns.map((r) => r.rssKiB / 1024);
  figures.push({
    id: "idle_rss",
    target: "-",
    what: "relay vs bare Deno script: idle RSS (after initialize, tools/list)",
    a: { label: "relay", unit: "MiB", samples: round(rss), median: median(rss) },
    b: { label: "bare Deno script", unit: "MiB", samples: round(bareRss), median: median(bareRss) },
    ratio: median(rss) / median(bareRss),
    goal: `relay ≤ ${GOAL_RSS_MIB} MiB`,
    met: median(rss) <= GOAL_RSS_MIB,
  });
}

// ------------------------------------------------------------------ projector
