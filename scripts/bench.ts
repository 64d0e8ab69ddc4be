// deno-lint-ignore-file no-console
/**
 * `deno task bench`: what the relay costs over talking to `codex app-server`
 * directly. Every figure is a ratio from one interleaved run (A B A B ...,
 * after two warm-up pairs) and uses medians; printed as a markdown table and
 * written to `bench/results.json`.
 *
 * - owner: `Owner.operation` (spawn, initialize, `thread/list`, reap) vs the
 *   minimal raw client (`scripts/raw_client.ts`) doing the same;
 * - relay: one `tools/call` through `mod.ts serve --allow-reply-read` (one
 *   SDK client connection, reused) vs the raw client replaying exactly the
 *   app-server requests the relay sent for that call (recorded once through a
 *   `tee` wrapper) with its own fresh app-server; for list, queue, read and
 *   one wait cycle;
 * - start: relay start to the `initialize` response vs a bare Deno script's
 *   start to its first answer, and the relay's idle RSS;
 * - projector: `matchUserItem` + `projectReplies` on a 1 MiB items page vs
 *   `JSON.parse` of that frame;
 * - 100 concurrent `codex_queue_message` calls: wall time, peak helpers,
 *   peak RSS, receipts accounted for against the fixture's store.
 *
 * Targets: the fixture app-server (`fixtures/bin/codex`), and real Codex when
 * it is installed in `.codex-npm/` (what CI installs) or given as `CODEX_BIN`
 * within the bench permission set.
 *
 * - daemon (`scripts/bench/daemon.ts`): `serve --app-server daemon` vs a raw
 *   WebSocket client of the daemon, same RPCs, for list, queue, read; the
 *   wait lag in daemon and in spawn mode.
 *
 * Options: `--samples N` (pairs per figure, default 9, at least 7),
 * `--no-codex` (fixture only), `--daemon` (only real Codex: spawn-mode relay
 * figures and the daemon figures).
 * @module
 */

import { Client } from "@modelcontextprotocol/client";
import denoJson from "../deno.json" with { type: "json" };
import { CommandClientTransport } from "../testing/mcp_client.ts";
import { relayArgs, ROOT } from "../testing/relay.ts";
import { agentItem, FIXTURE_BIN, thread, turn, userItem } from "../testing/fixture_home.ts";
import {
  AppServer,
  type CodexHome,
  createCodexHome,
  nativeCodexFor,
} from "../testing/codex_home.ts";
import { type MockResponses, startMockResponses } from "../testing/mock_responses.ts";
import { SpawnConnection as Owner } from "../src/connect/spawn/spawn_connection.ts";
import { allowedMethods } from "../src/core/capabilities.ts";
import { matchUserItem, projectReplies } from "../src/reply/mod.ts";
import type { ItemEntry } from "../src/codex/types.ts";
import { type RawRequest, rawSession } from "./raw_client.ts";
import { benchDaemon, type BenchRelay } from "./bench/daemon.ts";

const BENCH_DIR = `${ROOT}/bench`;
const TMP = `${BENCH_DIR}/tmp`;
const GOAL_RATIO = 1.2;
const GOAL_RSS_MIB = 60;
const TOOLS = ["codex_list_threads", "codex_queue_message", "codex_read_reply", "codex_wait_reply"];

interface Options {
  samples: number;
  codex: boolean;
  /** Only real Codex: its spawn-mode figures and the daemon figures (`--daemon`). */
  daemonOnly: boolean;
}

function parseOptions(args: string[]): Options {
  const options: Options = { samples: 9, codex: true, daemonOnly: false };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--samples") options.samples = Number(args[++i]);
    else if (args[i] === "--no-codex") options.codex = false;
    else if (args[i] === "--daemon") options.daemonOnly = true;
    else throw new Error(`Unknown option '${args[i]}' (give --samples N, --no-codex or --daemon)`);
  }
  if (!Number.isInteger(options.samples) || options.samples < 7) {
    throw new Error("--samples must be an integer of at least 7");
  }
  return options;
}

// ------------------------------------------------------------------ stats

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

interface Pair {
  a: number[];
  b: number[];
}

/** Two warm-up pairs, then `n` pairs A B A B ... */
async function interleave(
  n: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<Pair> {
  for (let i = 0; i < 2; i++) {
    await a();
    await b();
  }
  const out: Pair = { a: [], b: [] };
  for (let i = 0; i < n; i++) {
    out.a.push(await timed(a));
    out.b.push(await timed(b));
  }
  return out;
}

/** One row of the results. */
interface Figure {
  id: string;
  target: string;
  what: string;
  a: { label: string; unit: string; samples: number[]; median: number };
  b?: { label: string; unit: string; samples: number[]; median: number };
  /** median(A) / median(B). */
  ratio?: number;
  goal?: string;
  met?: boolean;
  note?: string;
}

const figures: Figure[] = [];

function pairFigure(
  id: string,
  target: string,
  what: string,
  labels: [string, string],
  pair: Pair,
  goal?: number,
): Figure {
  const ratio = median(pair.a) / median(pair.b);
  const f: Figure = {
    id,
    target,
    what,
    a: { label: labels[0], unit: "ms", samples: round(pair.a), median: median(pair.a) },
    b: { label: labels[1], unit: "ms", samples: round(pair.b), median: median(pair.b) },
    ratio,
    ...(goal === undefined ? {} : { goal: `≤ ${goal}`, met: ratio <= goal }),
  };
  figures.push(f);
  console.error(`bench: ${target} ${what}: ${fmt(f.a.median)} vs ${fmt(f.b!.median)} ms`);
  return f;
}

/** A figure of one series against a goal in ms (`≤ goal`). */
function singleFigure(id: string, target: string, what: string, xs: number[], goal: number): void {
  const m = median(xs);
  figures.push({
    id,
    target,
    what,
    a: { label: "median", unit: "ms", samples: round(xs), median: m },
    goal: `≤ ${goal} ms`,
    met: m <= goal,
  });
  console.error(`bench: ${target} ${what}: ${fmt(m)} ms`);
}

const round = (xs: number[]) => xs.map((x) => Math.round(x * 100) / 100);
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

// ------------------------------------------------------------------ processes

async function run(cmd: string, args: string[]): Promise<string> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "null" }).output();
    return new TextDecoder().decode(out.stdout);
  } catch {
    return "";
  }
}

async function rssKiB(pid: number): Promise<number> {
  return Number((await run("ps", ["-o", "rss=", "-p", String(pid)])).trim()) || 0;
}

async function countProcesses(needle: string): Promise<number> {
  const text = await run("ps", ["-eo", "stat=,args="]);
  return text.split("\n").filter((l) => {
    const m = l.trim().match(/^(\S+)\s+(.*)$/);
    return m !== null && !m[1].startsWith("Z") && m[2].includes(needle) && !m[2].startsWith("ps ");
  }).length;
}

/** A relay child with an SDK client on one connection. */
interface Relay {
  client: Client;
  transport: CommandClientTransport;
  close(): Promise<string>;
}

let denoDirCache: string | undefined;

/** Deno's cache, so that a relay whose HOME is a temp Codex home still finds its packages. */
async function denoDir(): Promise<string> {
  denoDirCache ??= JSON.parse(await run("deno", ["info", "--json"])).denoDir as string;
  return denoDirCache;
}

async function startRelay(env: Record<string, string>, flags: string[]): Promise<Relay> {
  const transport = new CommandClientTransport({
    command: "deno",
    args: relayArgs(flags),
    env: { ...env, DENO_DIR: await denoDir() },
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

type Structured = Record<string, unknown>;

async function callTool(client: Client, name: string, args: Structured): Promise<Structured> {
  const result = await client.callTool({ name, arguments: args }, { timeout: 60_000 });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Structured;
}

const SUCCESS: Record<string, string> = {
  codex_list_threads: "ok",
  codex_queue_message: "queued",
  codex_read_reply: "observed",
  codex_wait_reply: "observed",
};

// ------------------------------------------------------------------ targets

/** Something that answers as `codex app-server`. */
interface Target {
  name: string;
  /** Executable of the raw client and the owner. */
  command: string;
  /** Environment the relay passes to helpers (and the raw client gets). */
  env: Record<string, string>;
  /** A folder whose `codex` is `command`, for the relay's PATH. */
  binDir: string;
  threadId: string;
  clientMessageId: string;
  /** The fixture's home (its store), when the target is the fixture. */
  fixtureHome?: string;
  cleanup(): Promise<void>;
}

const PATH = Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin";
const HOME = Deno.env.get("HOME") ?? "/root";

async function fixtureTarget(): Promise<Target> {
  const home = await Deno.makeTempDir({ dir: TMP, prefix: "fixture-" });
  const clientMessageId = "bench-read-0001";
  const main = thread({
    name: "bench",
    turns: [
      turn([userItem(clientMessageId, "hello"), agentItem("msg_bench_final", "Echo: hello")]),
    ],
  });
  const others = Array.from({ length: 9 }, (_, i) => thread({ updatedAt: 1796006900 - i }));
  await Deno.writeTextFile(`${home}/fixture.json`, JSON.stringify({ threads: [main, ...others] }));
  return {
    name: "fixture",
    command: `${FIXTURE_BIN}/codex`,
    env: { PATH: `${FIXTURE_BIN}:${PATH}`, HOME, CODEX_HOME: home },
    binDir: FIXTURE_BIN,
    threadId: main.id,
    clientMessageId,
    fixtureHome: home,
    cleanup: () => Deno.remove(home, { recursive: true }),
  };
}

const NATIVE: Record<string, string> = {
  "linux-x86_64": "codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
  "linux-aarch64": "codex-linux-arm64/vendor/aarch64-unknown-linux-musl/bin/codex",
  "darwin-x86_64": "codex-darwin-x64/vendor/x86_64-apple-darwin/bin/codex",
  "darwin-aarch64": "codex-darwin-arm64/vendor/aarch64-apple-darwin/bin/codex",
};

/** The real codex binary the bench may run, or why not. */
async function findCodex(): Promise<{ path: string } | { skip: string }> {
  const candidates: string[] = [];
  const given = Deno.env.get("CODEX_BIN");
  if (given) {
    try {
      candidates.push(nativeCodexFor(given) ?? given);
    } catch {
      candidates.push(given);
    }
  }
  const rel = NATIVE[`${Deno.build.os}-${Deno.build.arch}`];
  if (rel) candidates.push(`${ROOT}/.codex-npm/node_modules/@openai/${rel}`);
  for (const path of candidates) {
    const allowed = await Deno.permissions.query({ name: "run", command: path });
    if (allowed.state !== "granted") {
      console.error(`bench: ${path} is outside the bench permission set (deno.json); skipped`);
      continue;
    }
    try {
      if ((await Deno.stat(path)).isFile) return { path };
    } catch {
      // Not installed there.
    }
  }
  return { skip: "not installed in .codex-npm/ (npm install --prefix .codex-npm @openai/codex)" };
}

async function codexTarget(path: string): Promise<Target> {
  const mock = await startMockResponses();
  const home = await createCodexHome({ mockUrl: mock.url, parentDir: TMP });
  try {
    return await codexTargetIn(home, mock, path);
  } catch (error) {
    await mock.close().catch(() => {});
    await home.cleanup();
    throw error;
  }
}

async function codexTargetIn(
  home: CodexHome,
  mock: MockResponses,
  path: string,
): Promise<Target> {
  // The relay finds the binary itself on PATH; a wrapper would add a shell to its spawns.
  let binDir = path.slice(0, path.lastIndexOf("/"));
  if (!path.endsWith("/codex")) {
    binDir = `${home.root}/bin`;
    await Deno.mkdir(binDir);
    await Deno.writeTextFile(`${binDir}/codex`, `#!/bin/sh\nexec '${path}' "$@"\n`, {
      mode: 0o755,
    });
  }
  const clientMessageId = crypto.randomUUID();
  let threadId: string;
  const app = await AppServer.start(home, { bin: path });
  try {
    threadId = (await app.startThread({ cwd: home.workspace })).id;
    const done = await app.runTurn(threadId, "hello from the bench", {
      clientUserMessageId: clientMessageId,
    });
    if (done.turn.status !== "completed") throw new Error(`setup turn ${done.turn.status}`);
  } finally {
    await app.close();
    await mock.close();
  }
  return {
    name: "real Codex",
    command: path,
    env: { PATH, HOME: home.home, CODEX_HOME: home.codexHome, LANG: "C.UTF-8" },
    binDir,
    threadId,
    clientMessageId,
    cleanup: () => home.cleanup(),
  };
}

function toolArgs(tool: string, t: Target): Structured {
  switch (tool) {
    case "codex_list_threads":
      return { limit: 20 };
    case "codex_queue_message":
      return { threadId: t.threadId, text: "a message from the bench" };
    case "codex_read_reply":
      return { threadId: t.threadId, clientMessageId: t.clientMessageId };
    default:
      return { threadId: t.threadId, clientMessageId: t.clientMessageId, timeoutSeconds: 1 };
  }
}

/** The app-server requests (after initialize) the relay sends for one call of each tool. */
async function recordSequences(t: Target, tools: string[]): Promise<Map<string, RawRequest[]>> {
  const dir = await Deno.makeTempDir({ dir: TMP, prefix: "record-" });
  const rec = `${dir}/frames.jsonl`;
  await Deno.writeTextFile(
    `${dir}/codex`,
    `#!/bin/sh\ntee -a '${rec}' | '${t.command}' "$@"\n`,
    { mode: 0o755 },
  );
  const relay = await startRelay({ ...t.env, PATH: `${dir}:${PATH}` }, ["--allow-reply-read"]);
  const out = new Map<string, RawRequest[]>();
  try {
    for (const tool of tools) {
      await Deno.writeTextFile(rec, "");
      const result = await callTool(relay.client, tool, toolArgs(tool, t));
      if (result.status !== SUCCESS[tool]) {
        throw new Error(`${t.name}: ${tool} answered ${JSON.stringify(result).slice(0, 300)}`);
      }
      const frames = (await Deno.readTextFile(rec)).split("\n").filter(Boolean).map((l) =>
        JSON.parse(l)
      );
      out.set(
        tool,
        frames.filter((m) => typeof m.method === "string" && m.id !== undefined)
          .filter((m) => m.method !== "initialize")
          .map((m) => ({ method: m.method, params: m.params })),
      );
    }
  } finally {
    await relay.close();
    await Deno.remove(dir, { recursive: true });
  }
  return out;
}

async function benchTarget(t: Target, options: Options): Promise<void> {
  const n = options.samples;
  const owner = new Owner({
    allowlist: allowedMethods({ replyRead: false, turnStart: false }),
    version: denoJson.version,
    command: t.command,
    env: t.env,
  });
  const list: RawRequest[] = [{ method: "thread/list", params: { limit: 20 } }];
  pairFigure(
    "owner_vs_raw",
    t.name,
    "owner vs raw client: spawn, initialize, thread/list, close",
    ["Owner.operation", "raw client"],
    await interleave(
      n,
      () => owner.operation((s) => s.call("thread/list", { limit: 20 })),
      () => rawSession(t.command, t.env, list),
    ),
    GOAL_RATIO,
  );
  await owner.shutdown();

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
      pairFigure(
        `relay_${tool}`,
        t.name,
        `relay vs raw client: \`${tool}\` (${seq.map((r) => r.method).join(", ")})`,
        ["one tools/call", "raw client, same RPCs"],
        await interleave(
          n,
          async () => {
            const out = await callTool(relay.client, tool, args);
            if (out.status !== SUCCESS[tool]) throw new Error(`${tool}: ${out.status}`);
          },
          () => rawSession(t.command, t.env, seq),
        ),
        GOAL_RATIO,
      );
    }
  } finally {
    await relay.close();
  }
}

/** What `scripts/bench/daemon.ts` borrows from this module. */
function daemonKit(options: Options) {
  const asBench = (r: Relay): BenchRelay & { client: Client } => ({
    client: r.client,
    stderr: () => r.transport.stderr,
    close: () => r.close(),
  });
  return {
    samples: options.samples,
    tmp: TMP,
    path: PATH,
    interleave,
    pairFigure,
    singleFigure,
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

// ------------------------------------------------------------------ start and RSS

async function firstAnswer(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  settleMs: number,
): Promise<{ ms: number; rssKiB: number }> {
  const t0 = performance.now();
  const child = new Deno.Command(cmd, {
    args,
    env,
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
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench", version: "0" },
    },
  });
  await answer(1);
  const ms = performance.now() - t0;
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
  await answer(2);
  await new Promise((r) => setTimeout(r, settleMs));
  const rss = await rssKiB(child.pid);
  await writer.close();
  await reader.cancel();
  await child.status;
  return { ms, rssKiB: rss };
}

const BARE_SERVER = `
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

async function benchStart(options: Options): Promise<void> {
  const bare = `${TMP}/bare_server.js`;
  await Deno.writeTextFile(bare, BARE_SERVER);
  const env = { PATH, HOME };
  const relay = () => firstAnswer("deno", relayArgs([]), env, 500);
  const bareRun = () =>
    firstAnswer("deno", ["run", "--quiet", "--no-prompt", "--no-config", bare], env, 500);
  const relayRuns: { ms: number; rssKiB: number }[] = [];
  const bareRuns: { ms: number; rssKiB: number }[] = [];
  for (let i = 0; i < 2; i++) {
    await relay();
    await bareRun();
  }
  for (let i = 0; i < options.samples; i++) {
    relayRuns.push(await relay());
    bareRuns.push(await bareRun());
  }
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

/** One `thread/items/list` page of 100 entries, shaped like the captures, of about 1 MiB. */
function itemsPage(): { frame: string; turnId: string; clientId: string } {
  const turnId = "01a22a5b-0000-7000-8000-00000000beef";
  const clientId = "bench-projector-0001";
  const build = (reps: number) => {
    const text = (i: number) => `${"é€😀a".repeat(reps)} ${i}`; // 10 bytes of UTF-8 per rep
    const entry = (item: Record<string, unknown>, i: number) => ({
      turnId,
      item,
      startedAtMs: 1796006982000 + i,
      completedAtMs: 1796006982000 + i,
    });
    const data = [entry(userItem(clientId, "please do the thing"), 0)];
    for (let i = 1; i < 100; i++) {
      const kind = i % 4;
      const item = kind === 0
        ? { type: "reasoning", id: `rs_${i}`, summary: [text(i)], content: [] }
        : kind === 1
        ? agentItem(`msg_${i}_c`, text(i), "commentary")
        : kind === 2
        ? agentItem(`msg_${i}_final`, text(i), "final_answer")
        : { type: "commandExecution", id: `call_${i}`, command: "ls", aggregatedOutput: text(i) };
      data.push(entry(item, i));
    }
    return JSON.stringify({ id: 7, result: { data, nextCursor: null, backwardsCursor: null } });
  };
  // The largest page whose frame fits the 1 MiB frame bound.
  const bytes = (frame: string) => new TextEncoder().encode(frame).length;
  let lo = 1;
  let hi = 2000;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (bytes(build(mid)) <= 1024 * 1024) lo = mid;
    else hi = mid - 1;
  }
  return { frame: build(lo), turnId, clientId };
}

async function benchProjector(options: Options): Promise<void> {
  const { frame, turnId, clientId } = itemsPage();
  const entries = JSON.parse(frame).result.data as ItemEntry[];
  const reps = 10;
  const project = () => {
    for (let r = 0; r < reps; r++) {
      const found = matchUserItem(entries, clientId);
      if (found.kind !== "observed") throw new Error("projector bench: no match");
      projectReplies(entries, turnId);
    }
    return Promise.resolve();
  };
  const parse = () => {
    for (let r = 0; r < reps; r++) JSON.parse(frame);
    return Promise.resolve();
  };
  const pair = await interleave(options.samples, project, parse);
  const per = (xs: number[]) => xs.map((x) => x / reps);
  const f = pairFigure(
    "projector_1mib",
    "-",
    `projector (matchUserItem + projectReplies) vs JSON.parse: one items page of 100 items, ${
      new TextEncoder().encode(frame).length
    } bytes`,
    ["matchUserItem + projectReplies", "JSON.parse of the frame"],
    { a: per(pair.a), b: per(pair.b) },
  );
  void f;
}

// ------------------------------------------------------------------ concurrency

async function benchConcurrentQueue(t: Target): Promise<void> {
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

// ------------------------------------------------------------------ report

interface Machine {
  nproc: number;
  arch: string;
  os: string;
  cpu: string;
  deno: string;
}

async function machine(): Promise<Machine> {
  const lscpu = await run("lscpu", []);
  const cpu = lscpu.match(/^Model name:\s*(.+)$/m)?.[1]?.trim() ?? "unknown";
  return {
    nproc: navigator.hardwareConcurrency,
    arch: Deno.build.arch,
    os: Deno.build.os,
    cpu,
    deno: Deno.version.deno,
  };
}

function table(): string {
  const rows = [["figure", "target", "A (median)", "B (median)", "A / B", "goal"]];
  for (const f of figures) {
    const a = Number.isNaN(f.a.median) ? f.note ?? "n/a" : `${fmt(f.a.median)} ${f.a.unit}`;
    const b = f.b ? `${fmt(f.b.median)} ${f.b.unit}` : "";
    const ratio = f.ratio === undefined ? "" : f.ratio.toFixed(2);
    const goal = f.goal ? `${f.goal}: ${f.met ? "met" : "NOT met"}` : "";
    rows.push([f.what, f.target, a, b, ratio, goal]);
  }
  const widths = rows[0].map((_, i) => Math.max(3, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  const notes = figures.filter((f) => f.note && !Number.isNaN(f.a.median))
    .map((f) => `- ${f.what} (${f.target}): ${f.note}`);
  return [
    line(rows[0]),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.slice(1).map(line),
    ...(notes.length ? ["", ...notes] : []),
  ].join("\n");
}

async function main(): Promise<void> {
  const options = parseOptions(Deno.args);
  await Deno.mkdir(TMP, { recursive: true });
  const started = new Date();
  const targets: Target[] = options.daemonOnly ? [] : [await fixtureTarget()];
  let codexNote = "not run (--no-codex)";
  try {
    if (options.codex) {
      const found = await findCodex();
      if ("path" in found) {
        targets.push(await codexTarget(found.path));
        codexNote = (await run(found.path, ["--version"])).trim();
      } else {
        codexNote = `skipped: ${found.skip}`;
      }
    }
    for (const t of targets) await benchTarget(t, options);
    const found = options.codex ? await findCodex() : undefined;
    if (found && "path" in found) await benchDaemon(daemonKit(options), found.path);
    if (!options.daemonOnly) {
      await benchStart(options);
      await benchProjector(options);
      await benchConcurrentQueue(targets[0]);
    }
  } finally {
    for (const t of targets) await t.cleanup().catch(() => {});
  }
  const info = { ...(await machine()), codex: codexNote };
  const results = {
    date: started.toISOString(),
    machine: info,
    samples: options.samples,
    method: "interleaved A B A B after 2 warm-up pairs; medians; ratio = median(A) / median(B)",
    figures,
  };
  await Deno.writeTextFile(`${BENCH_DIR}/results.json`, JSON.stringify(results, null, 2) + "\n");
  console.log(
    `codex-relay ${denoJson.version} bench, ${started.toISOString().slice(0, 10)}: ` +
      `${info.nproc} × ${info.cpu} (${info.arch}), Deno ${info.deno}, codex: ${codexNote}; ` +
      `${options.samples} samples per figure\n`,
  );
  console.log(table());
  console.log(`\nJSON: bench/results.json`);
}

if (import.meta.main) await main();
