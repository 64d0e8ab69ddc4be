/**
 * Shared pieces of the reliability suite (fault matrix, hostile input, load):
 * a seeded scenario full of text no tool may return, tool arguments, a relay
 * whose whole stderr is kept, the relay's own helper count (from its debug
 * log), the process table, RSS, and the fixture's queue store.
 * @module
 */

import assert from "assert";
import { Client, type ElicitResult } from "@modelcontextprotocol/client";
import {
  CommandClientTransport,
  type ElicitParams,
  type McpTestProtocol,
  SHUTDOWN_BOUND_MS,
} from "../../testing/mcp_client.ts";
import { agentItem, type FixtureHome, thread, turn, userItem } from "../../testing/fixture_home.ts";
import { relayArgs, ROOT } from "../../testing/relay.ts";
import type { FixtureThread, Scenario, TurnStep } from "../../fixtures/scenario.ts";
import { denoChildEnv } from "../../testing/child_env.ts";
import { groupsMatching, processTable } from "../../testing/process_table.ts";
import type { CallResult } from "../../testing/call_tool.ts";

/** Text stored in Codex that no tool at any level may return (previews, cwd, user text, commentary). */
export const SECRETS = {
  preview: "SECRET-PREVIEW-7f3a",
  cwd: "/SECRET-CWD-91c2/workspace",
  userText: "SECRET-USER-TEXT-4b8e",
  commentary: "SECRET-COMMENTARY-c05d",
  otherFinal: "SECRET-OTHER-SCOPE-FINAL-2e6f",
} as const;

/** The final answer the read tools may return for {@linkcode READ_CLIENT_ID}. */
/** A command approval as Codex 0.169 asks it (capture 09): a turn of the fault matrices waits on it. */
export const COMMAND_APPROVAL: TurnStep = {
  request: {
    method: "item/commandExecution/requestApproval",
    params: {
      itemId: "call_rel_1",
      reason: "the matrix asks",
      command: "/bin/true",
      cwd: "/workspace",
      commandActions: [],
      availableDecisions: ["accept", "decline", "cancel"],
    },
  },
};

export const OWN_FINAL = "own final answer 5a1c";
/** The clientMessageId of the readable message. */
export const READ_CLIENT_ID = "rel-read-0001";
/** The clientMessageId of another message in the same thread (another scope). */
export const OTHER_CLIENT_ID = "rel-read-0002";

/** The seeded threads of the suite. */
export interface Seeded {
  scenario: Scenario;
  /** A thread with two messages: {@linkcode READ_CLIENT_ID} and {@linkcode OTHER_CLIENT_ID}. */
  main: FixtureThread;
  /** A uniquely named thread. */
  named: FixtureThread;
}

/** A scenario whose threads hold every kind of text the tools must not leak. */
export function seeded(): Seeded {
  const main = thread({
    name: "reliability main",
    preview: SECRETS.preview,
    cwd: SECRETS.cwd,
    updatedAt: 1796006990,
    turns: [
      turn([
        userItem(READ_CLIENT_ID, SECRETS.userText),
        agentItem("msg_rel_c1", SECRETS.commentary, "commentary"),
        agentItem("msg_rel_f1", OWN_FINAL),
      ]),
      turn([
        userItem(OTHER_CLIENT_ID, SECRETS.userText),
        agentItem("msg_rel_f2", SECRETS.otherFinal),
      ]),
    ],
  });
  const named = thread({
    name: "reliability named",
    preview: SECRETS.preview,
    cwd: SECRETS.cwd,
    updatedAt: 1796006980,
  });
  const filler = Array.from(
    { length: 3 },
    (_, i) => thread({ preview: SECRETS.preview, cwd: SECRETS.cwd, updatedAt: 1796006900 - i }),
  );
  return { scenario: { threads: [main, named, ...filler] }, main, named };
}

/** The secrets found in `value` (serialized), for assertions. */
export function leakedSecrets(
  value: unknown,
  secrets: readonly string[] = Object.values(SECRETS),
): string[] {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return secrets.filter((s) => text.includes(s));
}

/** The text of a result's first text block. */
export function resultText(result: CallResult): string {
  const content = result.content as { type?: string; text?: string }[] | undefined;
  return content?.find((c) => c.type === "text")?.text ?? "";
}

/** A relay child whose whole stderr is kept (up to `stderrLimit`) and whose pid is known. */
export interface RelayProcess {
  client: Client;
  transport: CommandClientTransport;
  pid: number;
  /** Closes the client and the relay; the exit code and stderr. */
  close(): Promise<{ code: number; stderr: string }>;
}

/** Options of {@linkcode startRelayProcess}. */
export interface RelayProcessOptions {
  env: Record<string, string>;
  flags?: string[];
  protocol?: McpTestProtocol;
  /** Characters of stderr kept (default 8 MiB). */
  stderrLimit?: number;
  /** Executable that runs Deno (default `Deno.execPath()`). */
  deno?: string;
  /**
   * Answers elicitations (declares the capability): the client then fulfils
   * `input_required` rounds itself, unless a call asks for manual mode.
   */
  onElicit?: (params: ElicitParams) => ElicitResult | Promise<ElicitResult>;
}

/** Starts `mod.ts serve` under its own permission set and connects an SDK v2 client. */
export async function startRelayProcess(options: RelayProcessOptions): Promise<RelayProcess> {
  const transport = new CommandClientTransport({
    command: options.deno ?? Deno.execPath(),
    args: relayArgs(options.flags ?? []),
    env: denoChildEnv(options.env),
    clearEnv: true,
    cwd: ROOT,
    stderrLimit: options.stderrLimit ?? 8 * 1024 * 1024,
    closeGraceMs: SHUTDOWN_BOUND_MS,
  });
  const protocol = options.protocol ?? "2026-07-28";
  const client = new Client(
    { name: "codex-relay-reliability", version: "0.0.0" },
    {
      capabilities: options.onElicit ? { elicitation: {} } : {},
      versionNegotiation: protocol === "2026-07-28"
        ? { mode: { pin: "2026-07-28" } }
        : { mode: "legacy" },
    },
  );
  const onElicit = options.onElicit;
  if (onElicit) {
    client.setRequestHandler("elicitation/create", (request) => onElicit(request.params));
  }
  const close = async () => {
    await client.close().catch(() => {});
    await transport.close();
    const status = await transport.exited;
    if (transport.escalation) {
      throw new Error(
        `The relay did not exit within ${SHUTDOWN_BOUND_MS} ms of stdin EOF; the test client sent ${transport.escalation}`,
      );
    }
    return { code: status.code, stderr: transport.stderr };
  };
  try {
    await client.connect(transport, { timeout: 20_000 });
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
  return { client, transport, pid: transport.pid!, close };
}

/** An `input_required` result of a call in manual mode. */
export interface InputRequired {
  resultType: "input_required";
  inputRequests: Record<string, unknown>;
  requestState: string;
}

/**
 * Calls a tool in manual mode: an `input_required` round comes back to the
 * caller instead of being fulfilled by the client.
 */
export async function callToolManual(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallResult | InputRequired> {
  // `client.request`, not `callTool`: once `tools/list` cached the output schemas, `callTool`
  // validates an `input_required` round as a final result and throws (SDK 2.4.0).
  return await client.request(
    { method: "tools/call", params: { name, arguments: args } },
    { allowInputRequired: true, timeout: 60_000 } as never,
  ) as unknown as CallResult | InputRequired;
}

/** Whether a manual-mode result is an `input_required` round. */
export function isInputRequired(result: CallResult | InputRequired): result is InputRequired {
  return (result as InputRequired).resultType === "input_required";
}

/**
 * Retries a call with answers and a request state (the SDK's params type
 * lacks the retry fields). Rejects with the JSON-RPC error when the server
 * refuses the state.
 */
export async function retryTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  inputResponses: unknown,
  requestState: unknown,
): Promise<CallResult | InputRequired> {
  return await client.request(
    {
      method: "tools/call",
      params: { name, arguments: args, inputResponses, requestState },
    } as never,
    { allowInputRequired: true, timeout: 60_000 } as never,
  ) as unknown as CallResult | InputRequired;
}

/**
 * Hold and release events of the fixture store per thread: a thread every
 * holder released has as many of each (a process that dies releases too).
 */
export async function holdsAndReleases(
  f: FixtureHome,
): Promise<Map<string, { holds: number; releases: number }>> {
  const out = new Map<string, { holds: number; releases: number }>();
  let text = "";
  try {
    text = await Deno.readTextFile(`${f.home}/fixture-state.jsonl`);
  } catch {
    return out;
  }
  for (const line of text.split("\n")) {
    if (!line) continue;
    const ev = JSON.parse(line) as { e: string; threadId?: string };
    if ((ev.e !== "hold" && ev.e !== "release") || !ev.threadId) continue;
    const n = out.get(ev.threadId) ?? { holds: 0, releases: 0 };
    if (ev.e === "hold") n.holds++;
    else n.releases++;
    out.set(ev.threadId, n);
  }
  return out;
}

/** Asserts that every thread the fixture holds was released as often as it was held. */
export async function assertThreadsReleased(f: FixtureHome, label = ""): Promise<void> {
  for (const [threadId, n] of await holdsAndReleases(f)) {
    assert.equal(
      n.releases,
      n.holds,
      `${label}thread ${threadId} held ${n.holds}, released ${n.releases}`,
    );
  }
}

/** The tool names the relay registers. */
export async function registeredTools(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

/**
 * Helpers alive over time according to the relay's debug log (`spawn pid=N`
 * and `reaped pid=N` lines, written in the order they happen): the most alive
 * at once, and how many were spawned and reaped.
 */
export function helpersFromLog(stderr: string): { peak: number; spawned: number; reaped: number } {
  const alive = new Set<string>();
  let peak = 0;
  let spawned = 0;
  let reaped = 0;
  for (const line of stderr.split("\n")) {
    const m = line.match(/^codex-relay debug (spawn|reaped) pid=(\d+)/);
    if (!m) continue;
    if (m[1] === "spawn") {
      spawned++;
      alive.add(m[2]);
      peak = Math.max(peak, alive.size);
    } else {
      reaped++;
      alive.delete(m[2]);
    }
  }
  return { peak, spawned, reaped };
}

/**
 * Helpers alive now: the process groups holding a live process whose command
 * line contains `needle` (testing/process_table.ts: one per helper, however
 * many processes its launcher put behind it).
 */
export async function countProcesses(needle: string): Promise<number> {
  return groupsMatching(await processTable(), needle).length;
}

/** Resident set size of `pid` in KiB (`ps -o rss=`, i.e. VmRSS). */
export async function rssKiB(pid: number): Promise<number> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "rss=", "-p", String(pid)],
    stdout: "piped",
  })
    .output();
  const kib = Number(new TextDecoder().decode(out.stdout).trim());
  assert.ok(Number.isFinite(kib) && kib > 0, `no RSS for pid ${pid}`);
  return kib;
}

/**
 * Samples the process table (and the relay's RSS) back to back until `done`
 * settles: the most matching processes seen at once and the highest RSS.
 */
export async function sampleWhile(
  done: Promise<unknown>,
  needle: string,
  rssPid?: number,
): Promise<{ peakProcesses: number; peakRssKiB: number; samples: number }> {
  let finished = false;
  const settled = done.then(() => (finished = true), () => (finished = true));
  let peakProcesses = 0;
  let peakRssKiB = 0;
  let samples = 0;
  while (!finished) {
    const [n, rss] = await Promise.all([
      countProcesses(needle),
      rssPid === undefined ? Promise.resolve(0) : rssKiB(rssPid).catch(() => 0),
    ]);
    peakProcesses = Math.max(peakProcesses, n);
    peakRssKiB = Math.max(peakRssKiB, rss);
    samples++;
  }
  await settled;
  return { peakProcesses, peakRssKiB, samples };
}

/** How many times the fixture store holds each clientUserMessageId (queue adds, any thread). */
export async function storedMessages(f: FixtureHome): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let text = "";
  try {
    text = await Deno.readTextFile(`${f.home}/fixture-state.jsonl`);
  } catch {
    return counts;
  }
  for (const line of text.split("\n")) {
    if (!line) continue;
    const ev = JSON.parse(line) as { e: string; submission?: { clientUserMessageId?: string } };
    const id = ev.e === "queue.add" ? ev.submission?.clientUserMessageId : undefined;
    if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/**
 * Checks that receipts tell the truth against the fixture's store: `queued`
 * means stored exactly once, `not_sent` means not stored, `unknown` at most
 * once; and no message was sent to the app-server twice.
 */
export async function assertReceiptsTruthful(
  f: FixtureHome,
  receipts: readonly Record<string, unknown>[],
): Promise<void> {
  const stored = await storedMessages(f);
  const sent = new Map<string, number>();
  for (const r of await f.requests()) {
    if (r.method !== "thread/queue/add") continue;
    const id = (r.params as { clientUserMessageId?: string }).clientUserMessageId ?? "";
    sent.set(id, (sent.get(id) ?? 0) + 1);
  }
  for (const r of receipts) {
    const id = String(r.clientMessageId);
    const n = stored.get(id) ?? 0;
    const label = `${r.status}/${r.reason ?? "-"} receipt ${id}`;
    if (r.status === "queued") assert.equal(n, 1, `${label}: stored ${n} times`);
    else if (r.status === "not_sent") assert.equal(n, 0, `${label}: stored ${n} times`);
    else assert.ok(r.status === "unknown" && n <= 1, `${label}: stored ${n} times`);
    assert.ok((sent.get(id) ?? 0) <= 1, `${label}: sent ${sent.get(id)} times`);
  }
}
