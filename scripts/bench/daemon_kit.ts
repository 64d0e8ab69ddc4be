// deno-lint-ignore-file no-console
/**
 * `deno task bench`: what the daemon figures (`scripts/bench/daemon.ts`) use
 * of the rest of the bench: its timing, its figures and its relay.
 * @module
 */

import type { Client } from "@modelcontextprotocol/client";
import type { Options } from "./_options.ts";
import { type Relay, startRelay, type Structured, TMP } from "./_relay.ts";
import { figures, singleFigure } from "./_stats.ts";
import { PATH } from "./targets.ts";
import type { BenchRelay, DaemonBenchKit } from "./daemon.ts";

/** The kit `benchDaemon` runs with. */
export function daemonKit(options: Options): DaemonBenchKit {
  const asBench = (r: Relay): BenchRelay & { client: Client } => ({
    client: r.client,
    stderr: () => r.transport.stderr,
    close: () => r.close(),
  });
  return {
    samples: options.samples,
    lags: options.only !== "daemon" && !options.quick,
    tmp: TMP,
    path: PATH,
    singleFigure,
    failedFigure: (id, target, what, why) =>
      figures.push({
        id,
        target,
        what,
        a: { label: "median", unit: "ms", samples: [], median: NaN },
        note: `not measured: ${why.slice(0, 300)}`,
      }),
    startRelay: async (env: Record<string, string>, flags: string[]) =>
      asBench(await startRelay(env, flags)),
    callTool: async (
      relay: BenchRelay,
      name: string,
      args: Structured,
      onProgress?: () => void,
    ) => {
      const { client } = relay as BenchRelay & { client: Client };
      const result = await client.callTool({ name, arguments: args }, {
        timeout: 60_000,
        ...(onProgress ? { onprogress: onProgress, resetTimeoutOnProgress: true } : {}),
      });
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      return result.structuredContent as Structured;
    },
  };
}
