// deno-lint-ignore-file no-console
/**
 * `deno task bench`: Relay vs raw client per tool call (interleaved), and 100 concurrent queue calls.
 * @module
 */

import { openRaw } from "../raw_client.ts";
import { benchSpawnCalls } from "./warm.ts";
import type { Options } from "./_options.ts";
import { callTool, countProcesses, rssKiB, startRelay, SUCCESS, TOOLS } from "./_relay.ts";
import { figures, interleave, median, pairFigure } from "./_stats.ts";
import { PATH, recordSequences, type Target, toolArgs } from "./targets.ts";

export async function benchTarget(t: Target, options: Options): Promise<void> {
  const n = options.samples;
  await benchSpawnCalls(t, n);
  // Both sides warm: the relay's helper and the raw client's app-server stay open.
  const raw = await openRaw(t.command, t.env);
  const relay = await startRelay({ ...t.env, PATH: `${t.binDir}:${PATH}` }, ["--allow-reply-read"]);
  try {
    const registered = (await relay.client.listTools()).tools.map((x) => x.name);
    const available = TOOLS.filter((x) => registered.includes(x));
    const sequences = await recordSequences(t, available);
    for (const tool of TOOLS) {
      if (!available.includes(tool)) {
        figures.push({
          id: `relay_${tool}`,
          target: t.name,
          what: `relay vs raw client: \`${tool}\``,
          a: { label: "tools/call", unit: "ms", samples: [], median: NaN },
          note: "n/a (tool not available)",
        });
        continue;
      }
      const args = toolArgs(tool, t);
      const seq = sequences.get(tool)!;
      const pair = await interleave(
        n,
        async () => {
          const out = await callTool(relay.client, tool, args);
          if (out.status !== SUCCESS[tool]) throw new Error(`${tool}: ${out.status}`);
        },
        async () => {
          for (const r of seq) await raw.call(r.method, r.params);
        },
      );
      // No ratio goal: on an open connection the raw RPCs take 1-5 ms, so any MCP round trip
      // doubles them; the goals are absolute (a warm call ≤ 20 ms: benchSpawnCalls).
      const share = median(pair.a) - median(pair.b);
      pairFigure(
        `relay_${tool}`,
        t.name,
        `relay vs raw client: \`${tool}\` (${seq.map((r) => r.method).join(", ")}); relay's share ${
          share.toFixed(2)
        } ms`,
        ["one tools/call", "raw client, same RPCs, open connection"],
        pair,
      );
    }
  } finally {
    await relay.close();
    await raw.close();
  }
}

// ------------------------------------------------------------------ start and RSS

export async function benchConcurrentQueue(t: Target): Promise<void> {
  const relay = await startRelay(
    { ...t.env, PATH: `${t.binDir}:${PATH}` },
    ["--log-level", "debug"],
  );
  try {
    for (let i = 0; i < 5; i++) {
      await callTool(relay.client, "codex_queue_message", toolArgs("codex_queue_message", t));
    }
    const pid = relay.transport.pid!;
    const rssBefore = await rssKiB(pid);
    const logStart = relay.transport.stderr.length;
    const t0 = performance.now();
    const calls = Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        callTool(relay.client, "codex_queue_message", {
          threadId: t.threadId,
          text: `concurrent message ${i}`,
        })),
    );
    let done = false;
    let wallMs = 0;
    const finished = calls.then(() => {
      wallMs = performance.now() - t0;
      done = true;
    }, () => (done = true));
    let peakPs = 0;
    let peakRss = rssBefore;
    let samples = 0;
    while (!done) {
      const [n, rss] = await Promise.all([countProcesses(t.fixtureHome!), rssKiB(pid)]);
      peakPs = Math.max(peakPs, n);
      peakRss = Math.max(peakRss, rss);
      samples++;
    }
    await finished;
    const receipts = await calls;
    // The relay's own log: spawn and reaped lines in the order they happened.
    let alive = 0;
    let peakLog = 0;
    for (const line of relay.transport.stderr.slice(logStart).split("\n")) {
      if (/^codex-relay debug spawn /.test(line)) peakLog = Math.max(peakLog, ++alive);
      if (/^codex-relay debug reaped /.test(line)) alive--;
    }
    const tally = new Map<string, number>();
    for (const r of receipts) {
      const key = `${r.status}${r.reason ? `/${r.reason}` : ""}`;
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }
    const stored = new Map<string, number>();
    for (
      const line of (await Deno.readTextFile(`${t.fixtureHome}/fixture-state.jsonl`)).split("\n")
    ) {
      if (!line) continue;
      const ev = JSON.parse(line);
      const id = ev.e === "queue.add" ? ev.submission?.clientUserMessageId : undefined;
      if (id) stored.set(id, (stored.get(id) ?? 0) + 1);
    }
    const truthful = receipts.every((r) => {
      const n = stored.get(String(r.clientMessageId)) ?? 0;
      return r.status === "queued" ? n === 1 : r.status === "not_sent" ? n === 0 : n <= 1;
    });
    const accounted = receipts.length === 100 && truthful;
    figures.push({
      id: "concurrent_queue_100",
      target: t.name,
      what: "100 concurrent `codex_queue_message` calls: wall time",
      a: { label: "wall time", unit: "ms", samples: [Math.round(wallMs)], median: wallMs },
      goal: "helpers ≤ 4, every receipt accounted for",
      met: peakLog <= 4 && peakPs <= 4 && accounted,
      note:
        `peak helpers ${peakLog} (relay log) / ${peakPs} (process table, ${samples} samples); ` +
        `RSS ${(rssBefore / 1024).toFixed(0)} → peak ${(peakRss / 1024).toFixed(0)} MiB; ` +
        `receipts ${[...tally].map(([k, v]) => `${v} ${k}`).join(", ")}; ` +
        (accounted ? "all 100 match the store" : "RECEIPTS DO NOT MATCH THE STORE"),
    });
    console.error(`bench: ${t.name} 100 concurrent queue calls: ${Math.round(wallMs)} ms`);
  } finally {
    await relay.close();
  }
}

// ------------------------------------------------------------------ sustained load
