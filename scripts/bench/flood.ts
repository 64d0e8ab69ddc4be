// deno-lint-ignore-file no-console
/**
 * A flood of MCP requests against one relay (started as users start it, V8
 * flags included, on the fixture app-server), with its RSS read from `ps`:
 *
 * 1. 100,000 pipelined `tools/list` from a client that does not read stdout
 *    for `--idle-seconds` (default 5): RSS before / peak; the relay must still
 *    be alive; then the client reads: every request answered, RSS after.
 * 2. 20,000 pipelined `tools/call codex_list_threads` (read as they come):
 *    every one answered (a result or `busy`), peak RSS.
 * 3. One more call: the relay serves on.
 *
 * `deno run -P=bench scripts/bench/flood.ts [--requests N] [--calls N] [--idle-seconds S]`
 * @module
 */

import { parseArgs } from "parse-args";
import { relayArgs, ROOT } from "../../testing/relay.ts";
import { rssKiB, TMP } from "./_relay.ts";
import { denoChildEnv } from "../../testing/child_env.ts";
import { INITIALIZED, initializeRequest } from "../../testing/raw_relay.ts";
import { fixtureTarget } from "./targets.ts";

const enc = new TextEncoder();

interface Flood {
  child: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Ids answered, counted once stdout is read. */
  answered: Map<unknown, number>;
  errors: number;
  /** Stops reading stdout (before the next chunk). */
  pause(): void;
  /** Reads stdout again. */
  resume(): void;
  /** Resolves once `n` distinct ids are answered. */
  answeredAll(n: number): Promise<void>;
}

function startFlood(env: Record<string, string>): Flood {
  const child = new Deno.Command("deno", {
    args: relayArgs([]),
    env,
    clearEnv: true,
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let gate: PromiseWithResolvers<void> | undefined;
  const answered = new Map<unknown, number>();
  let wake = () => {};
  const flood: Flood = {
    child,
    writer: child.stdin.getWriter(),
    answered,
    errors: 0,
    pause: () => void (gate ??= Promise.withResolvers<void>()),
    resume: () => {
      gate?.resolve();
      gate = undefined;
    },
    answeredAll: async (n) => {
      while (answered.size < n) await new Promise<void>((resolve) => (wake = resolve));
    },
  };
  void (async () => {
    let buffer = "";
    const chunks = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    while (true) {
      if (gate) await gate.promise;
      const { value: chunk, done } = await chunks.read();
      if (done) break;
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        const m = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if ("id" in m && !("method" in m)) {
          answered.set(m.id, (answered.get(m.id) ?? 0) + 1);
          if (m.error) flood.errors++;
        }
      }
      wake();
    }
    wake();
  })();
  return flood;
}

async function send(f: Flood, lines: unknown[]): Promise<void> {
  const batch = 1000;
  for (let i = 0; i < lines.length; i += batch) {
    const text = lines.slice(i, i + batch).map((m) => JSON.stringify(m) + "\n").join("");
    await f.writer.write(enc.encode(text));
  }
}

/** Samples RSS every 100 ms until `stop` resolves; resolves with the peak (KiB). */
async function peakWhile(pid: number, stop: Promise<unknown>): Promise<number> {
  let done = false;
  void stop.finally(() => (done = true));
  let peak = 0;
  while (!done) {
    peak = Math.max(peak, await rssKiB(pid));
    await new Promise((r) => setTimeout(r, 100));
  }
  return Math.max(peak, await rssKiB(pid));
}

const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;

async function main(): Promise<void> {
  const args = parseArgs({
    args: Deno.args,
    options: {
      requests: { type: "string", default: "100000" },
      calls: { type: "string", default: "20000" },
      "idle-seconds": { type: "string", default: "5" },
    },
  }).values;
  const requests = Number(args.requests);
  const calls = Number(args.calls);
  const idleMs = Number(args["idle-seconds"]) * 1000;
  await Deno.mkdir(TMP, { recursive: true });
  const t = await fixtureTarget();
  const f = startFlood(denoChildEnv(t.env));
  const pid = f.child.pid;
  try {
    await send(f, [initializeRequest("init"), INITIALIZED]);
    await f.answeredAll(1);
    const before = await rssKiB(pid);
    console.log(`relay pid ${pid}: RSS before the flood ${mib(before)}`);

    // 1. Pipelined tools/list, stdout unread for idleMs (a second reader starts after it).
    f.pause();
    const lines = Array.from({ length: requests }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "tools/list",
    }));
    const writing = send(f, lines);
    const idle = new Promise((r) => setTimeout(r, idleMs));
    const peakIdle = await peakWhile(pid, idle);
    const alive = await rssKiB(pid) > 0;
    console.log(
      `${requests} tools/list pipelined, stdout unread for ${idleMs / 1000} s: peak RSS ${
        mib(peakIdle)
      }, relay alive: ${alive}`,
    );
    f.resume();
    const t0 = performance.now();
    const drained = Promise.all([writing, f.answeredAll(requests + 1)]);
    const peakRead = await peakWhile(pid, drained);
    const after = await rssKiB(pid);
    const dup = [...f.answered.values()].filter((n) => n !== 1).length;
    console.log(
      `then read: ${
        f.answered.size - 1
      } of ${requests} answered (${f.errors} errors, ${dup} answered twice) in ${
        Math.round(performance.now() - t0)
      } ms; peak RSS while reading ${mib(peakRead)}; RSS after ${mib(after)}`,
    );

    // 2. Pipelined tools/call, read as they come.
    const callLines = Array.from({ length: calls }, (_, i) => ({
      jsonrpc: "2.0",
      id: `c${i}`,
      method: "tools/call",
      params: { name: "codex_list_threads", arguments: { limit: 5 } },
    }));
    const t1 = performance.now();
    const callsDone = Promise.all([send(f, callLines), f.answeredAll(requests + 1 + calls)]);
    const peakCalls = await peakWhile(pid, callsDone);
    console.log(
      `${calls} tools/call codex_list_threads pipelined: all answered in ${
        Math.round(performance.now() - t1)
      } ms; peak RSS ${mib(peakCalls)}; RSS after ${mib(await rssKiB(pid))}`,
    );

    // 3. It serves on.
    await send(f, [{
      jsonrpc: "2.0",
      id: "last",
      method: "tools/call",
      params: { name: "codex_list_threads", arguments: {} },
    }]);
    await f.answeredAll(requests + calls + 2);
    console.log(`one more call answered; RSS ${mib(await rssKiB(pid))}`);
  } finally {
    await f.writer.close().catch(() => {});
    const status = await f.child.status;
    console.log(`relay exited with code ${status.code}`);
    await t.cleanup().catch(() => {});
  }
}

if (import.meta.main) await main();
