// deno-lint-ignore-file no-console
/**
 * The daemon's per-call figures of `deno task bench` (`scripts/bench/daemon.ts`
 * runs them): the same RPCs done five ways in one round-robin interleaved run
 * (the order rotates each round, two warm-up rounds first), so that the parts
 * of one call can be told apart on a loaded machine:
 *
 * - `sdk`: one `tools/call` of a relay under `serve --app-server daemon`,
 *   through the MCP SDK client (what an MCP client sees);
 * - `lines`: the same `tools/call` of a second such relay, written as raw MCP
 *   lines on its stdio (no SDK client's work on top);
 * - `ping`: an MCP `ping` on that relay: the stdio round trip every MCP
 *   server costs, whatever it does;
 * - `proxy`: a raw WebSocket client of the daemon through its own
 *   `codex app-server proxy` (the relay's path), the same RPCs;
 * - `direct`: a raw WebSocket client straight on the daemon's control socket.
 *
 * Per round: the relay's share = lines − ping − proxy (what the relay itself
 * adds to the RPCs on its path), the proxy hop = proxy − direct. A second run
 * times each call after 400 ms of quiet (untimed), as an agent's calls come:
 * the relay then probes the connection first (`src/connect/daemon/liveness.ts`).
 * And the relay's CPU per call beyond an MCP ping, which the load hardly moves.
 * The per-call run has three rounds per `--samples` (a round takes milliseconds).
 * @module
 */

import type { DaemonClient } from "../../testing/daemon_client.ts";
import { fmt, median, pairFigure, roundRobin, singleFigure } from "./_stats.ts";
import type { McpLines } from "./mcp_lines.ts";

type Structured = Record<string, unknown>;

/** One RPC of a raw client. */
export interface Rpc {
  method: string;
  params: unknown;
}

/** One tool measured: its arguments, its RPCs, the status it must answer. */
export interface CallCase {
  tool: string;
  args: Structured;
  sequence: () => Rpc[];
  status: string;
  /** Most rounds (each adds to the daemon's state: its queue holds at most 100). */
  maxRounds?: number;
}

/** The clients one run compares. */
export interface CallSides {
  /** One `tools/call` through the SDK client of a relay in daemon mode. */
  sdk(tool: string, args: Structured): Promise<Structured>;
  lines: McpLines;
  proxy: DaemonClient;
  direct: DaemonClient;
}

/** Goals of the daemon's per-call figures (ms). */
export const CALL_GOALS = Object.freeze({ callMs: 10, shareMs: 1 });

const TARGET = "real Codex, daemon";
const QUIET_MS = 400;

/** The per-call figures of each case, then the quiet-call figures of the first. */
export async function benchDaemonCalls(
  samples: number,
  sides: CallSides,
  cases: CallCase[],
): Promise<void> {
  for (const c of cases) await oneCase(Math.min(samples * 3, c.maxRounds ?? Infinity), sides, c);
  await relayCpu(sides, cases[0]);
  await quietCalls(Math.min(samples, 15), sides, cases[0]);
}

function ways(sides: CallSides, c: CallCase): Record<string, () => Promise<unknown>> {
  const check = (out: Structured) => {
    if (out.status !== c.status) throw new Error(`${c.tool}: ${JSON.stringify(out)}`);
  };
  return {
    sdk: async () => check(await sides.sdk(c.tool, c.args)),
    lines: async () => check(await sides.lines.callTool(c.tool, c.args)),
    ping: () => sides.lines.request("ping", {}),
    proxy: async () => {
      for (const rpc of c.sequence()) await sides.proxy.request(rpc.method, rpc.params);
    },
    direct: async () => {
      for (const rpc of c.sequence()) await sides.direct.request(rpc.method, rpc.params);
    },
  };
}

async function oneCase(samples: number, sides: CallSides, c: CallCase): Promise<void> {
  const t = await roundRobin(samples, ways(sides, c));
  const share = t.lines.map((x, i) => x - t.ping[i] - t.proxy[i]);
  const hop = t.proxy.map((x, i) => x - t.direct[i]);
  const rpcs = c.sequence().map((r) => r.method).join(", ");
  pairFigure(
    `daemon_${c.tool}`,
    TARGET,
    `daemon: \`${c.tool}\` tools/call (SDK client) vs raw WebSocket client on the control socket, same RPCs (${rpcs}); MCP ping ${
      fmt(median(t.ping))
    } ms, raw through the proxy ${fmt(median(t.proxy))} ms, raw MCP lines ${
      fmt(median(t.lines))
    } ms`,
    ["one tools/call", "raw client, control socket"],
    { a: t.sdk, b: t.direct },
  );
  singleFigure(
    `daemon_${c.tool}_ms`,
    TARGET,
    `daemon: \`${c.tool}\` one tools/call`,
    t.sdk,
    CALL_GOALS.callMs,
  );
  singleFigure(
    `daemon_${c.tool}_share`,
    TARGET,
    `daemon: \`${c.tool}\` relay's share per round (raw MCP lines − MCP ping − raw through the proxy); proxy hop ${
      fmt(median(hop))
    } ms (raw through the proxy − raw on the socket)`,
    share,
    CALL_GOALS.shareMs,
  );
}

const CPU_CALLS = 500;

/**
 * The relay's own CPU per call: its process's CPU time over
 * {@linkcode CPU_CALLS} `tools/call`s minus over as many MCP pings (the stdio
 * round trip any server pays). CPU time hardly moves with the load, so this
 * is the steadiest figure of the relay's share on a shared machine.
 */
async function relayCpu(sides: CallSides, c: CallCase): Promise<void> {
  const perCall = async (fn: () => Promise<unknown>) => {
    const before = await sides.lines.cpuMs();
    for (let i = 0; i < CPU_CALLS; i++) await fn();
    return ((await sides.lines.cpuMs()) - before) / CPU_CALLS;
  };
  const call = await perCall(() => sides.lines.callTool(c.tool, c.args));
  const ping = await perCall(() => sides.lines.request("ping", {}));
  if (Number.isNaN(call)) return;
  singleFigure(
    `daemon_${c.tool}_cpu`,
    TARGET,
    `daemon: \`${c.tool}\` the relay's CPU per tools/call beyond an MCP ping (${fmt(call)} − ${
      fmt(ping)
    } ms; ${CPU_CALLS} each)`,
    [call - ping],
    CALL_GOALS.shareMs,
  );
}

/** Each call after {@linkcode QUIET_MS} of quiet: the relay probes first, the raw clients do not. */
async function quietCalls(samples: number, sides: CallSides, c: CallCase): Promise<void> {
  const all = ways(sides, c);
  const quiet = (fn: () => Promise<unknown>) => async () => {
    await new Promise((r) => setTimeout(r, QUIET_MS)); // The quiet spell itself, untimed below.
    return fn;
  };
  const t: Record<string, number[]> = { sdk: [], proxy: [], direct: [] };
  const names = Object.keys(t);
  for (let i = 0; i < samples + 1; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + i) % names.length];
      const fn = await quiet(all[name])();
      const t0 = performance.now();
      await fn();
      if (i > 0) t[name].push(performance.now() - t0);
    }
  }
  console.error(
    `bench: daemon quiet calls: relay ${fmt(median(t.sdk))}, proxy ${
      fmt(median(t.proxy))
    }, direct ${fmt(median(t.direct))} ms`,
  );
  pairFigure(
    `daemon_${c.tool}_quiet`,
    TARGET,
    `daemon: \`${c.tool}\` after ${QUIET_MS} ms of quiet (the relay probes first) vs raw WebSocket client on the control socket; raw through the proxy ${
      fmt(median(t.proxy))
    } ms`,
    ["one tools/call", "raw client, control socket"],
    { a: t.sdk, b: t.direct },
  );
}
