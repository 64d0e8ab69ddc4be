// deno-lint-ignore-file no-console
/**
 * The daemon figures of `deno task bench` (real Codex only): a relay under
 * `serve --app-server daemon` vs raw WebSocket clients of the same daemon
 * doing the same RPCs over their own open connections, through a proxy and
 * straight on the control socket (list, queue, read; `daemon_calls.ts`), and
 * the wait lag (final answer stored → `codex_wait_reply` returns) in daemon
 * mode and, beside it, in spawn mode (the turn held by a stdio app-server,
 * the relay polling).
 *
 * The raw client's sequences are the RPCs `src/ops/*` send; the relay's are
 * taken from its debug log for one call each, and the bench fails when they
 * differ, so the two sides always do the same work.
 * @module
 */

import { AppServer } from "../../testing/app_server_client.ts";
import { type CodexHome, createCodexHome } from "../../testing/codex_home.ts";
import { startMockResponses } from "../../testing/mock_responses.ts";
import { DaemonClient, startDaemon, stopDaemon } from "../../testing/daemon_client.ts";
import { benchDaemonCalls, type CallCase, type Rpc } from "./daemon_calls.ts";
import { McpLines } from "./mcp_lines.ts";

type Structured = Record<string, unknown>;

/** What the bench's main module lends this one. */
export interface DaemonBenchKit {
  samples: number;
  /** Whether to measure the wait lags too (`--only daemon` does not: the per-call figures only). */
  lags: boolean;
  /** Temp folder of the bench. */
  tmp: string;
  /** The relay's PATH without the codex folder. */
  path: string;
  singleFigure(id: string, target: string, what: string, samples: number[], goal: number): void;
  /** A figure that could not be measured, with why (printed as its note). */
  failedFigure(id: string, target: string, what: string, why: string): void;
  startRelay(env: Record<string, string>, flags: string[]): Promise<BenchRelay>;
  callTool(
    relay: BenchRelay,
    name: string,
    args: Structured,
    onProgress?: () => void,
  ): Promise<Structured>;
}

/** A relay child as the bench starts it. */
export interface BenchRelay {
  stderr(): string;
  close(): Promise<string>;
}

/** Targets of the daemon's wait lags (ms); the per-call goals are `daemon_calls.ts`'s. */
export const DAEMON_GOALS = Object.freeze({
  lagDaemonMs: 250,
  lagSpawnMs: 300,
});

const TARGET = "real Codex, daemon";

/** Runs the daemon figures against the real Codex at `codexPath` (a folder whose `codex` it is). */
export async function benchDaemon(kit: DaemonBenchKit, codexPath: string): Promise<void> {
  const binDir = codexPath.slice(0, codexPath.lastIndexOf("/"));
  const mock = await startMockResponses();
  const home = await createCodexHome({ mockUrl: mock.url, parentDir: kit.tmp });
  const env = {
    PATH: `${binDir}:${kit.path}`,
    HOME: home.home,
    CODEX_HOME: home.codexHome,
    LANG: "C.UTF-8",
  };
  const closers: { close(): Promise<unknown> }[] = [];
  let daemon = false;
  // Once only: a `daemon stop` with no daemon running leaves a new pid-update-loop behind.
  const stop = async () => {
    if (!daemon) return;
    daemon = false;
    const killed = await stopDaemon(codexPath, home);
    if (killed.length) console.error(`bench: reaped ${killed.length} daemon process(es)`);
  };
  try {
    const seed = await seedThreads(home, codexPath);
    // Spawn mode first (before the daemon installs its packages in the home): a stdio
    // app-server holds the thread and runs the turns.
    if (kit.lags) {
      await spawnLag(kit, mock, env, home, seed, codexPath).catch((error) => {
        console.error(`bench: spawn wait lag failed: ${error}`);
        kit.failedFigure("spawn_wait_lag", "real Codex, spawn", "spawn: wait lag", String(error));
      });
    }

    daemon = true;
    const info = await startDaemon(codexPath, home);
    const user = await DaemonClient.connect(codexPath, home, "bench_user");
    closers.push(user);
    await user.request("thread/resume", { threadId: seed.hot, excludeTurns: true });
    const sequences = rawSequences(seed);
    await checkSequences(kit, env, seed, sequences);

    const flags = ["--app-server", "daemon", "--allow-reply-read"];
    const relay = await kit.startRelay(env, flags);
    closers.push(relay);
    const lines = await McpLines.start(env, flags);
    closers.push(lines);
    const direct = await connectDirect(info.socketPath);
    closers.push(direct);
    await benchDaemonCalls(kit.samples, {
      sdk: (tool, args) => kit.callTool(relay, tool, args),
      lines,
      proxy: user,
      direct,
    }, cases(seed, sequences));
    if (!kit.lags) return;
    const daemonLags = await waitLags(kit, mock, relay, seed.hot, async (text, clientId) => {
      await user.request("thread/queue/add", queueParams(seed.hot, text, clientId));
      return (pred) => user.waitFor(pred);
    });
    kit.singleFigure(
      "daemon_wait_lag",
      TARGET,
      "daemon: wait lag, final answer stored → codex_wait_reply returns",
      daemonLags,
      DAEMON_GOALS.lagDaemonMs,
    );
  } finally {
    for (const c of closers.reverse()) await c.close().catch(() => {});
    await stop().catch(() => {});
    await mock.close();
    await home.cleanup();
  }
}

/**
 * Where the bench may open a unix socket (its permission set names this one
 * absolute path: Deno grants a socket by its exact path, `--allow-net=unix:PATH`
 * and read on it; write removes the link), so the bench links it to the
 * daemon's socket, which lies in a temp folder; the link lives only while the
 * connection opens.
 */
const SOCKET_LINK = "/tmp/codex-relay-bench.sock";

/** A raw client straight on the daemon's control socket, opened through {@linkcode SOCKET_LINK}. */
async function connectDirect(socketPath: string): Promise<DaemonClient> {
  await Deno.remove(SOCKET_LINK).catch(() => {});
  // `ln`: Deno.symlink needs unscoped read and write.
  const ln = await new Deno.Command("ln", { args: ["-s", socketPath, SOCKET_LINK] }).output();
  if (!ln.success) throw new Error(`ln -s ${socketPath} ${SOCKET_LINK} failed`);
  try {
    return await DaemonClient.connectSocket(SOCKET_LINK, "bench_direct");
  } finally {
    await Deno.remove(SOCKET_LINK).catch(() => {});
  }
}

/** The wait lag in spawn mode: the turn held by a stdio app-server, the relay polling. */
async function spawnLag(
  kit: DaemonBenchKit,
  mock: Awaited<ReturnType<typeof startMockResponses>>,
  env: Record<string, string>,
  home: CodexHome,
  seed: Seed,
  codexPath: string,
): Promise<void> {
  const holder = await AppServer.start(home, { bin: codexPath });
  try {
    await holder.request("thread/resume", { threadId: seed.hot, excludeTurns: true });
    const spawnRelay = await kit.startRelay(env, ["--allow-reply-read"]);
    try {
      const spawnLags = await waitLags(kit, mock, spawnRelay, seed.hot, async (text, clientId) => {
        await holder.startTurn(seed.hot, text, clientId);
        return async (pred) => {
          const n = await holder.waitForNotification((n) =>
            pred({ method: n.method, params: n.params })
          );
          return { method: n.method, params: n.params };
        };
      });
      kit.singleFigure(
        "spawn_wait_lag",
        "real Codex, spawn",
        "spawn: wait lag, final answer stored (another process) → codex_wait_reply returns",
        spawnLags,
        DAEMON_GOALS.lagSpawnMs,
      );
    } finally {
      await spawnRelay.close();
    }
  } finally {
    await holder.close();
  }
}

interface Seed {
  hot: string;
  cold: string;
  /** The hot thread's completed message. */
  clientMessageId: string;
  turnId: string;
}

async function seedThreads(home: CodexHome, bin: string): Promise<Seed> {
  const d = await AppServer.start(home, { bin });
  try {
    const hot = (await d.startThread({ cwd: home.workspace })).id;
    const clientMessageId = crypto.randomUUID();
    const run = await d.runTurn(hot, "hello from the bench", {
      clientUserMessageId: clientMessageId,
    });
    const cold = (await d.startThread({ cwd: home.workspace })).id;
    await d.runTurn(cold, "seed", { clientUserMessageId: crypto.randomUUID() });
    return { hot, cold, clientMessageId, turnId: run.turnId };
  } finally {
    await d.close();
  }
}

/** The RPCs each tool sends (`src/ops/list_threads.ts`, `queue_message.ts`, `read_reply.ts`). */
function rawSequences(seed: Seed): Record<string, () => Rpc[]> {
  return {
    codex_list_threads: () => [{ method: "thread/list", params: { limit: 20 } }],
    codex_queue_message: () => [{
      method: "thread/queue/add",
      params: queueParams(seed.cold, "bench NOECHO", crypto.randomUUID()),
    }],
    codex_read_reply: () => [
      {
        method: "thread/items/list",
        params: { threadId: seed.hot, sortDirection: "desc", limit: 100 },
      },
      {
        method: "thread/turns/list",
        params: { threadId: seed.hot, limit: 50, sortDirection: "desc", itemsView: "notLoaded" },
      },
      {
        method: "thread/items/list",
        params: { threadId: seed.hot, turnId: seed.turnId, sortDirection: "asc", limit: 100 },
      },
    ],
  };
}

function cases(seed: Seed, sequences: Record<string, () => Rpc[]>): CallCase[] {
  return [
    {
      tool: "codex_list_threads",
      args: { limit: 20 },
      sequence: sequences.codex_list_threads,
      status: "ok",
    },
    {
      tool: "codex_queue_message",
      args: { threadId: seed.cold, text: "bench NOECHO" },
      sequence: sequences.codex_queue_message,
      status: "queued",
      // Four adds a round, two warm-up rounds, one add by checkSequences: at most 97 queued.
      maxRounds: 22,
    },
    {
      tool: "codex_read_reply",
      args: { threadId: seed.hot, clientMessageId: seed.clientMessageId },
      sequence: sequences.codex_read_reply,
      status: "observed",
    },
  ];
}

function queueParams(threadId: string, text: string, clientUserMessageId: string): Structured {
  return { threadId, clientUserMessageId, input: [{ type: "text", text, text_elements: [] }] };
}

/**
 * One call of each tool through a relay with `--log-level debug`: the methods
 * it logged must be the raw client's. Printed once.
 */
async function checkSequences(
  kit: DaemonBenchKit,
  env: Record<string, string>,
  seed: Seed,
  sequences: Record<string, () => Rpc[]>,
): Promise<void> {
  const relay = await kit.startRelay(env, [
    "--app-server",
    "daemon",
    "--allow-reply-read",
    "--log-level",
    "debug",
  ]);
  try {
    for (const { tool, args, sequence } of cases(seed, sequences)) {
      const from = relay.stderr().length;
      await kit.callTool(relay, tool, args);
      const logged = [...relay.stderr().slice(from).matchAll(/ debug rpc method="([^"]+)"/g)]
        .map((m) => m[1]);
      const raw = sequence().map((r) => r.method);
      console.error(`bench: daemon ${tool}: relay sent ${logged.join(", ")}`);
      if (logged.join() !== raw.join()) {
        throw new Error(`${tool}: the relay sent ${logged.join(", ")}, the raw client ${raw}`);
      }
    }
  } finally {
    await relay.close();
  }
}

type Waiter = (pred: (m: Structured) => boolean) => Promise<Structured>;

/**
 * `samples` waits: each queues (or starts) a `SLOW:` message, starts
 * `codex_wait_reply`, releases the turn at a random moment 0.5-1.5 s into the
 * wait, and measures from the holder's `item/completed` of the final answer
 * to the wait's return.
 */
async function waitLags(
  kit: DaemonBenchKit,
  mock: Awaited<ReturnType<typeof startMockResponses>>,
  relay: BenchRelay,
  threadId: string,
  start: (text: string, clientId: string) => Promise<Waiter>,
): Promise<number[]> {
  const lags: number[] = [];
  for (let i = 0; i < kit.samples; i++) {
    const tag = `lag${crypto.randomUUID().slice(0, 8)}`;
    const text = `SLOW:${tag} NOECHO wait lag ${i}`;
    const clientId = crypto.randomUUID();
    const waitFor = await start(text, clientId);
    const { seq } = await mock.held(tag);
    let storedAt = 0;
    const stored = waitFor((m) =>
      m.method === "item/completed" &&
      ((m.params as Structured).item as Structured)?.id === `msg_${seq}_final`
    ).then(() => (storedAt = performance.now()));
    const progressed = Promise.withResolvers<void>();
    const waited = kit.callTool(
      relay,
      "codex_wait_reply",
      { threadId, clientMessageId: clientId, timeoutSeconds: 30 },
      () => progressed.resolve(),
    );
    // A wait that answers before its first progress never waited: say what it answered.
    const early = await Promise.race([
      progressed.promise.then(() => undefined),
      waited.then((out) => out, (error) => ({ error: String(error) })),
    ]);
    if (early) {
      console.error(`bench: wait lag ${i}: the wait answered at once: ${JSON.stringify(early)}`);
      mock.release(tag);
      await stored.catch(() => {});
      throw new Error(
        `wait lag ${i}: the wait answered at once: ${JSON.stringify(early).slice(0, 300)}`,
      );
    }
    // A random release moment, so the lag samples the whole pacing cycle.
    await new Promise((r) => setTimeout(r, 500 + Math.random() * 1000));
    mock.release(tag);
    const out = await waited;
    const returnedAt = performance.now();
    await stored;
    if (out.status !== "observed" || (out.replies as unknown[]).length !== 1) {
      throw new Error(`wait lag ${i}: ${JSON.stringify(out).slice(0, 300)}`);
    }
    lags.push(returnedAt - storedAt);
  }
  console.error(`bench: wait lags ${lags.map((x) => x.toFixed(0)).join(", ")} ms`);
  return lags;
}
