// deno-lint-ignore-file no-console
/**
 * `deno task bench`: Starting the relay for the bench and calling its tools; process-table and RSS readings.
 * @module
 */

import { Client } from "@modelcontextprotocol/client";
import { CommandClientTransport } from "../../testing/mcp_client.ts";
import { relayArgs, ROOT } from "../../testing/relay.ts";
import { denoChildEnv } from "../../testing/child_env.ts";
import { groupsMatching, processTable } from "../../testing/process_table.ts";

export const BENCH_DIR = `${ROOT}/bench`;

export const TMP = `${BENCH_DIR}/tmp`;

export const TOOLS = [
  "codex_list_threads",
  "codex_queue_message",
  "codex_read_reply",
  "codex_wait_reply",
];

export async function run(cmd: string, args: string[]): Promise<string> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "null" }).output();
    return new TextDecoder().decode(out.stdout);
  } catch {
    return "";
  }
}

export async function rssKiB(pid: number): Promise<number> {
  return Number((await run("ps", ["-o", "rss=", "-p", String(pid)])).trim()) || 0;
}

/** Helpers alive now: process groups holding a process naming `needle` (one per helper). */
export async function countProcesses(needle: string): Promise<number> {
  return groupsMatching(await processTable(), needle).length;
}

/** A relay child with an SDK client on one connection. */
export interface Relay {
  client: Client;
  transport: CommandClientTransport;
  close(): Promise<string>;
}

export async function startRelay(
  env: Record<string, string>,
  flags: string[],
  args: string[] = relayArgs(flags),
): Promise<Relay> {
  const transport = new CommandClientTransport({
    command: "deno",
    args,
    env: denoChildEnv(env),
    clearEnv: true,
    cwd: ROOT,
    stderrLimit: 16 * 1024 * 1024,
  });
  const client = new Client({ name: "codex-relay-bench", version: "0.0.0" }, {
    capabilities: {},
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(transport, { timeout: 30_000 });
  return {
    client,
    transport,
    async close() {
      await client.close().catch(() => {});
      await transport.close();
      return transport.stderr;
    },
  };
}

export type Structured = Record<string, unknown>;

export async function callTool(
  client: Client,
  name: string,
  args: Structured,
): Promise<Structured> {
  const result = await client.callTool({ name, arguments: args }, { timeout: 60_000 });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Structured;
}

export const SUCCESS: Record<string, string> = {
  codex_list_threads: "ok",
  codex_queue_message: "queued",
  codex_read_reply: "observed",
  codex_wait_reply: "observed",
};

// ------------------------------------------------------------------ targets
