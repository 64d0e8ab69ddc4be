/**
 * `serve`: the MCP server on stdio. Shuts down on stdin EOF, SIGINT or
 * SIGTERM: cancels calls, reaps helpers, resolves with exit code 0.
 * @module
 */

import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { type Logger, stderrLogger } from "../core/log.ts";
import { openConnection } from "../connect/open.ts";
import { allowedMethods, type Capabilities } from "../core/capabilities.ts";
import { instructionsFor } from "./instructions.ts";
import { buildServer } from "./server.ts";
import { TOOLS } from "./tools/all_tools.ts";
import { createRequestStateCodec } from "@modelcontextprotocol/server";
import type { RoundState } from "./input_rounds.ts";
import { systemClock } from "../core/clock.ts";
import { turnMachinery } from "../turn/turn_machinery.ts";
import type { ServeFlags } from "./serve_flags.ts";
import { LineStdioTransport } from "./stdio_transport.ts";

/** Runs the server until stdin closes or a termination signal arrives; returns the exit code. */
export async function serve(flags: ServeFlags, version: string): Promise<number> {
  const log = stderrLogger(flags.logLevel);
  const caps: Capabilities = { replyRead: flags.allowReplyRead, turnStart: flags.allowTurnStart };
  // Side-effect free: the daemon connection opens on the first RPC.
  const mode = flags.appServer;
  const connection = openConnection(mode, { allowlist: allowedMethods(caps), version, log });
  const clock = systemClock;
  const codec = createRequestStateCodec<RoundState>({
    key: crypto.getRandomValues(new Uint8Array(32)),
    ttlSeconds: 600,
  });
  const { router, turns, starts } = turnMachinery({
    connection,
    clock,
    log,
    readsReplies: caps.replyRead,
    autoApproveMcpTools: flags.autoApproveMcpTools,
    disabledMcpServers: flags.disableCodexMcpServers,
  });
  const shutdown = new AbortController();
  const done = Promise.withResolvers<string>();

  // Our own stdio transport: one bad or oversized message is refused alone, never the connection.
  const wire = new LineStdioTransport({ log });
  const handle = serveStdio(
    () =>
      buildServer({
        info: { name: "codex-relay", version },
        caps,
        connection,
        tools: TOOLS,
        shutdown: shutdown.signal,
        log,
        instructions: instructionsFor(caps),
        clock,
        turns,
        starts,
        router,
        mintRound: (state) => codec.mint(state),
        serverOptions: { requestState: { verify: codec.verify }, inputRequired: { maxRounds: 10 } },
      }),
    {
      transport: wire,
      onerror: (error) => log.warn("mcp", { error: error.message.slice(0, 200) }),
    },
  );
  const entryOnClose = wire.onclose;
  wire.onclose = () => {
    entryOnClose?.();
    done.resolve("stdin closed");
  };
  const stopSignals = onSignals(["SIGINT", "SIGTERM"], (signal) => done.resolve(signal), log);
  log.info("serving", {
    replyRead: caps.replyRead,
    turnStart: caps.turnStart,
    version,
    appServer: mode.kind,
  });

  const why = await done.promise;
  log.info("shutting down", { why });
  // The signal listeners stay until the end: a second SIGTERM must not end the relay uncleanly.
  shutdown.abort();
  const cleanup = (async () => {
    await turns.shutdown();
    await connection.shutdown();
  })();
  if (!(await settlesWithin(cleanup, SHUTDOWN_GRACE_MS))) {
    const killed = await connection.kill();
    log.warn("shutdown out of time: helpers killed", { graceMs: SHUTDOWN_GRACE_MS, killed });
  }
  await settlesWithin(handle.close(), 100);
  stopSignals();
  log.info("stopped", { spawned: connection.stats.spawned });
  return 0;
}

/**
 * How long a shutdown waits for turns to be interrupted and helpers to be
 * reaped before it kills what is left: the whole shutdown takes at most 2 s.
 */
export const SHUTDOWN_GRACE_MS = 1_600;

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let id: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (id = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const, () => true as const), timeout]);
  } finally {
    clearTimeout(id);
  }
}

function onSignals(signals: Deno.Signal[], fn: (signal: string) => void, log: Logger): () => void {
  const added: [Deno.Signal, () => void][] = [];
  for (const signal of signals) {
    const listener = () => fn(signal);
    try {
      Deno.addSignalListener(signal, listener);
      added.push([signal, listener]);
    } catch {
      log.debug("signal unsupported", { signal });
    }
  }
  return () => {
    for (const [signal, listener] of added) Deno.removeSignalListener(signal, listener);
  };
}
