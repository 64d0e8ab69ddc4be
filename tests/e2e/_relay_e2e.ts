/**
 * Shared setup of the relay e2e tests (`relay_e2e_*test.ts`): one world per test (the
 * Responses mock, a temp CODEX_HOME, the relay's environment with `codex` first on PATH) and
 * the calls and checks the tests share. Each test file calls {@linkcode e2eCodex} first.
 * @module
 */
import assert from "node:assert/strict";
import { AppServer } from "../../testing/app_server_client.ts";
import { type CodexBinInfo, codexForTests } from "../../testing/codex_bin.ts";
import { type ApprovalSetting, type CodexHome, relayEnv } from "../../testing/codex_home.ts";
import { processesTagged } from "../../testing/process_table.ts";
import type { MockResponses } from "../../testing/mock_responses.ts";
import { withMockHome } from "../../testing/mock_home.ts";
import { ROOT, startRelay } from "../../testing/relay.ts";
import { startCommand } from "../../src/install/launch.ts";
import type { ConnectedClient, ElicitParams, McpTestProtocol } from "../../testing/mcp_client.ts";
import type { CallToolResult, ElicitResult } from "@modelcontextprotocol/client";
import {
  callTool,
  type ToolName,
  type ToolOutput,
  type ToolResult,
  withoutNext,
} from "../../testing/call_tool.ts";

let BIN: CodexBinInfo | null = null;

/** Resolves the real codex for `file` (a SKIPPED line, or a failing test under CODEX_E2E_REQUIRED=1, when there is none). */
export function e2eCodex(file: string): CodexBinInfo | null {
  BIN = codexForTests(file);
  return BIN;
}

export type Rec = Record<string, unknown>;
export const BUDGET_BYTES = 16 * 1024;
export const utf8 = new TextEncoder();

/** One test's world: the mock, the temp root, the relay's environment. */
export interface World {
  mock: MockResponses;
  home: CodexHome;
  /** The relay's environment (PATH starts with the temp bin dir holding `codex`). */
  env: Record<string, string>;
  /** Starts a raw app-server driver on this home (closed when the test ends). */
  driver(): Promise<AppServer>;
  /** Starts the relay (closed, and its exit code checked, when the test ends). */
  relay(
    flags: string[],
    opts?: {
      protocol?: McpTestProtocol;
      onElicit?: (p: ElicitParams) => ElicitResult | Promise<ElicitResult>;
      /**
       * Start it as an entry install wrote for a resolved Codex: `serve --codex <real binary>`
       * and a run grant naming only it, with no `codex` on its PATH.
       */
      namedCodex?: boolean;
    },
  ): Promise<ConnectedClient>;
}

/**
 * Runs `fn` in a fresh world. `tap`: the relay's `codex` is a shell script that records what each
 * helper reads and writes in `<root>/frames/<pid>.in` / `.out` (see {@link tappedFrames}).
 */
export async function withWorld(
  opts: { elicitMcp?: boolean; extraMcpArgs?: string[]; approval?: ApprovalSetting; tap?: boolean },
  fn: (w: World) => Promise<void>,
): Promise<void> {
  const { tap, ...homeOpts } = opts;
  const bin = tap ? undefined : BIN!.path;
  await withMockHome({ ...homeOpts, bin }, async ({ mock, home, env }) => {
    if (tap) Object.assign(env, await relayEnv(home, await tappedBin(home)));
    const tmp = Deno.env.get("TMPDIR");
    if (tmp) env.TMPDIR = tmp;
    await inWorld(mock, home, env, fn);
  });
}

/** `<root>/bin` holding a `codex` that records each helper's frames (see {@link tappedFrames}). */
async function tappedBin(home: CodexHome): Promise<string> {
  const binDir = `${home.root}/bin`;
  await Deno.mkdir(binDir);
  const frames = `${home.root}/frames`;
  await Deno.mkdir(frames);
  // sh waits for the whole pipeline: when the relay closes stdin, tee, codex and tee end, then sh.
  await Deno.writeTextFile(
    `${binDir}/codex`,
    `#!/bin/sh\ntee "${frames}/$$.in" | "${BIN!.path}" "$@" | tee "${frames}/$$.out"\n`,
    { mode: 0o755 },
  );
  return binDir;
}

/**
 * Runs `fn` in the world of `mock` and `home` (which the caller closes and
 * removes): the drivers and relays it starts are closed, the relays' exit
 * codes checked and the process table too.
 */
export async function inWorld(
  mock: MockResponses,
  home: CodexHome,
  env: Record<string, string>,
  fn: (w: World) => Promise<void>,
): Promise<void> {
  const drivers: AppServer[] = [];
  const relays: ConnectedClient[] = [];
  const world: World = {
    mock,
    home,
    env,
    async driver() {
      const d = await AppServer.start(home, { bin: BIN!.path });
      drivers.push(d);
      return d;
    },
    async relay(flags, o = {}) {
      const named = o.namedCodex ? namedCodexStart(env, BIN!.path) : undefined;
      const r = await startRelay({
        env: named?.env ?? env,
        flags: [...flags, ...named?.flags ?? []],
        permissions: named?.permissions,
        protocol: o.protocol ?? "2026-07-28",
        onElicit: o.onElicit,
      });
      relays.push(r);
      // The process-table check at the end is meaningful only if it sees the relay.
      const seen = await processesTagged(home.root);
      assert.ok(seen.some((p) => p.pid === r.transport.pid), "the ps check finds the relay");
      return r;
    },
  };
  let failure: unknown = null;
  try {
    await fn(world);
  } catch (error) {
    failure = error;
  }
  const problems: string[] = [];
  for (const d of drivers) await d.close();
  // Once its calls have returned, a relay holds at most its warm helper (one process group per
  // relay: the spawn-mode app-server of operations, kept 30 s after its last call); no turn host
  // and nothing else. At shutdown it reaps that too (the check after close below).
  const relayPids = new Set(relays.map((r) => r.transport.pid));
  const held = (await processesTagged(home.root)).filter((p) => !relayPids.has(p.pid));
  const groups = new Set(held.map((p) => p.pgid));
  if (groups.size > relays.length) {
    problems.push(`held by the relay after its calls: ${JSON.stringify(held)}`);
  }
  for (const r of relays) {
    const { code, stderr } = await r.close();
    if (code !== 0) problems.push(`relay exited ${code}: ${stderr.slice(-2000)}`);
  }
  const left = await processesTagged(home.root);
  if (left.length > 0) problems.push(`processes left behind: ${JSON.stringify(left)}`);
  if (failure) {
    // deno-lint-ignore no-console
    if (problems.length > 0) console.error(`also: ${problems.join("; ")}`);
    throw failure;
  }
  assert.deepEqual(problems, [], "the relay exits 0 and leaves no process behind");
}

/**
 * Live `codex app-server` helpers started for this home (helpers and drivers):
 * their process groups, one per helper however it was launched.
 */
export async function helpers(home: CodexHome): Promise<number[]> {
  const rows = (await processesTagged(home.root))
    .filter((p) => / app-server(\s|$)/.test(p.cmdline));
  return [...new Set(rows.map((p) => p.pgid))];
}

/** Starts a thread in the workspace and runs one turn with a UUID clientUserMessageId. */
export async function seedThread(
  d: AppServer,
  home: CodexHome,
  text: string,
): Promise<{ threadId: string; turnId: string; clientId: string }> {
  const thread = await d.startThread({ cwd: home.workspace });
  const clientId = crypto.randomUUID();
  const run = await d.runTurn(thread.id, text, { clientUserMessageId: clientId });
  assert.equal(run.turn.status, "completed");
  return { threadId: thread.id, turnId: run.turnId, clientId };
}

export async function call<N extends ToolName>(
  c: ConnectedClient,
  name: N,
  args: Rec,
): Promise<ToolResult<N>> {
  const result = await callTool(c.client, name, args);
  assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`);
  return result;
}

export function structured<N extends ToolName>(result: ToolResult<N>): ToolOutput<N> {
  assert.ok(result.structuredContent, "the result has structuredContent");
  return result.structuredContent;
}

/**
 * A tool's structured result without `next`, after checking that `next` says
 * what to do (every result of every tool carries it), for exact comparisons.
 */
export function body(out: Rec): Rec {
  assert.ok(
    typeof out.next === "string" && out.next.length > 0,
    `next says what to do: ${JSON.stringify(out)}`,
  );
  return withoutNext(out);
}

/** The sequence number of the mock request whose latest user text is `text`. */
export function seqOf(mock: MockResponses, text: string): number {
  const hits = mock.requests.filter((r) => r.userText === text);
  assert.equal(hits.length, 1, `exactly one model request for ${JSON.stringify(text)}`);
  return hits[0].seq;
}

/** Resumes a stored thread in `d` (its queued messages run) and waits for the turns of `clientIds`. */
export async function runQueued(
  d: AppServer,
  threadId: string,
  clientIds: string[],
): Promise<Map<string, Rec>> {
  await d.request("thread/resume", { threadId, excludeTurns: true });
  const turns = new Map<string, Rec>();
  for (const clientId of clientIds) {
    const started = await d.waitForNotification(
      (n) =>
        n.method === "item/completed" && (n.params.item as Rec).type === "userMessage" &&
        (n.params.item as Rec).clientId === clientId,
      `user item ${clientId}`,
    );
    turns.set(clientId, await d.waitForTurnCompleted(String(started.params.turnId)));
  }
  return turns;
}

export function assertNoLeak(result: CallToolResult, secrets: string[]): void {
  const all = JSON.stringify(result);
  for (const s of secrets) assert.ok(!all.includes(s), `the result must not contain ${s}`);
}

/** `codex_read_reply` (fails the test on an isError result). */
export async function readReply(
  relay: ConnectedClient,
  args: { threadId: string; clientMessageId: string; cursor?: string; refresh?: boolean },
): Promise<{ result: ToolResult<"codex_read_reply">; out: Rec }> {
  const result = await call(relay, "codex_read_reply", args);
  return { result, out: structured(result) };
}

/** One line a tapped helper read (`in`, from the relay) or wrote (`out`, to the relay). */
export interface TappedFrame {
  pid: number;
  dir: "in" | "out";
  msg: Rec;
}

/** Every frame the tapped helpers of this world exchanged with the relay (world option `tap`). */
export async function tappedFrames(home: CodexHome): Promise<TappedFrame[]> {
  const frames: TappedFrame[] = [];
  for await (const entry of Deno.readDir(`${home.root}/frames`)) {
    const [pid, dir] = entry.name.split(".");
    const text = await Deno.readTextFile(`${home.root}/frames/${entry.name}`);
    for (const line of text.split("\n")) {
      if (line.trim()) {
        frames.push({ pid: Number(pid), dir: dir as "in" | "out", msg: JSON.parse(line) });
      }
    }
  }
  return frames;
}

/** The command approval Codex sent in `threadId`, and the one answer the relay wrote back. */
export async function approvalExchange(
  home: CodexHome,
  threadId: string,
): Promise<{ request: Rec; answer: Rec }> {
  const frames = await tappedFrames(home);
  const asks = frames.filter((f) =>
    f.dir === "out" && f.msg.method === "item/commandExecution/requestApproval" &&
    (f.msg.params as Rec).threadId === threadId
  );
  assert.equal(asks.length, 1, "Codex asked once");
  const [ask] = asks;
  const answers = frames.filter((f) =>
    f.pid === ask.pid && f.dir === "in" && !("method" in f.msg) && f.msg.id === ask.msg.id
  );
  assert.equal(answers.length, 1, "the relay answered the request exactly once");
  return { request: ask.msg, answer: answers[0].msg };
}

/**
 * What an entry install wrote for the resolved `codex` adds to a start (`startCommand()`'s
 * words): the run grant after `-P` and `--codex` after `serve`; and `env` without the folder of
 * the world's `codex` on PATH, so nothing else could answer.
 */
function namedCodexStart(
  env: Record<string, string>,
  codex: string,
): { env: Record<string, string>; flags: string[]; permissions: string[] } {
  const line = startCommand({ kind: "checkout", root: ROOT }, NO_CAPS, "deno", codex);
  const path = env.PATH.split(":").filter((d) => !d.endsWith("/bin") || !isFile(`${d}/codex`));
  return {
    env: { ...env, PATH: path.join(":") },
    flags: line.slice(line.indexOf("serve") + 1),
    permissions: line.slice(line.indexOf("-P") + 1, line.indexOf("--no-prompt")),
  };
}

const NO_CAPS = { replyRead: false, turnStart: false };

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
