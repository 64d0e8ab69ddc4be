/**
 * `serve`: the MCP server over a pair of byte streams (the CLI's are stdin
 * and stdout). Shuts down when the input ends or the stop signal fires (the
 * CLI's SIGINT or SIGTERM): cancels calls, reaps helpers, resolves with exit
 * code 0. The input's end ends the input, not the work: every request read
 * before it is answered (by the call, or with an error saying the relay shut
 * down first) within the shutdown bound. It touches neither the process's
 * stdin, stdout nor signal handlers: the CLI passes those.
 * @module
 */

import type { WorktreeDeps } from "../ops/worktree.ts";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { type Logger, stderrLogger } from "../core/log.ts";
import { openConnection } from "../connect/open.ts";
import type { Connection } from "../connect/connection.ts";
import { capabilitiesOf } from "../core/capabilities.ts";
import { allowedMethods } from "../codex/methods.ts";
import { instructionsFor } from "./instructions.ts";
import { surfaceOf } from "./surface.ts";
import { buildServer } from "./server.ts";
import { createRequestStateCodec } from "@modelcontextprotocol/server";
import type { RoundState } from "./input_rounds.ts";
import type { TurnMachinery } from "../turn/turn_machinery.ts";
import type { Tool } from "./tool.ts";
import type { z } from "zod";
import { type Clock, systemClock } from "../core/clock.ts";
import { QueuedHere } from "../ops/queued_here.ts";
import { isDefaultLevel, servedTools } from "./tools/served_tools.ts";
import { type ServeFlags, serveFlags, type ServeOptions } from "./serve_flags.ts";
import { VERSION } from "../core/version.ts";
import { LineStdioTransport } from "./stdio_transport.ts";

/**
 * Serves MCP on `options.readable` / `options.writable` until the readable
 * ends or `options.signal` aborts; resolves with the exit code (0), every
 * process it started ended. Throws a `TypeError` for options the CLI would
 * refuse (before anything is read or started).
 *
 * @example Serve over in-memory streams, stopped by an abort signal
 * ```ts
 * import assert from "assert";
 * import { serve } from "@codex-relay/cli";
 * const toRelay = new TransformStream<Uint8Array, Uint8Array>();
 * const fromRelay = new TransformStream<Uint8Array, Uint8Array>();
 * const stop = new AbortController();
 * const serving = serve({
 *   readable: toRelay.readable,
 *   writable: fromRelay.writable,
 *   signal: stop.signal,
 *   allowReplyRead: true,
 * });
 * // Write JSON-RPC lines to toRelay.writable, read the answers from fromRelay.readable...
 * stop.abort();
 * assert.equal(await serving, 0);
 * ```
 */
export async function serve(options: ServeOptions): Promise<number> {
  return await serveWith(serveFlags(options, "options"), options);
}

/**
 * The server over `io` with flags {@linkcode serveFlags} parsed: the library's
 * {@linkcode serve}, and the CLI's on the process's stdio.
 *
 * @example
 * ```ts ignore
 * await serveWith(serveFlags({ allowReplyRead: true }, "options"), { readable, writable });
 * ```
 */
export async function serveWith(
  flags: ServeFlags,
  io: Pick<ServeOptions, "readable" | "writable" | "signal">,
): Promise<number> {
  const version = VERSION;
  const log = stderrLogger(flags.logLevel);
  const caps = capabilitiesOf(flags);
  // Side-effect free: the daemon connection opens on the first RPC.
  const mode = flags.appServer;
  const open = { allowlist: allowedMethods(caps), version, log, command: flags.codex };
  const connection = await openConnection(mode, open);
  const clock = systemClock;
  const codec = roundCodec();
  const queuedHere = new QueuedHere();
  const shutdown = new AbortController();
  const { tools, worktrees, machinery } = await levelParts(flags, {
    connection,
    clock,
    log,
    queuedHere,
    shutdown: shutdown.signal,
  });

  // Our own stdio transport: one bad or oversized message is refused alone, never the connection.
  const wire = new LineStdioTransport({ log, input: io.readable, output: io.writable });
  // --channels needs --allow-turn-start: the machinery is loaded whenever it is given.
  const push = flags.channels && machinery
    ? (await import("./channels.ts")).runPushOn(machinery.turns, (m) => wire.send(m), log)
    : undefined;
  const handle = serveStdio(
    () =>
      buildServer({
        info: { name: "codex-relay", version },
        caps,
        connection,
        tools,
        shutdown: shutdown.signal,
        log,
        instructions: instructionsFor(surfaceOf(caps, connection), flags.channels === true),
        clock,
        queuedHere,
        machinery,
        mintRound: (state) => codec.mint(state),
        worktrees,
        push,
        serverOptions: { requestState: { verify: codec.verify }, inputRequired: { maxRounds: 10 } },
      }),
    {
      transport: wire,
      onerror: (error) => log.warn("mcp", { error: error.message.slice(0, 200) }),
    },
  );
  const end = endings(wire, io.signal);
  log.info("serving", {
    replyRead: caps.replyRead,
    turnStart: caps.turnStart,
    version,
    appServer: mode.kind,
  });

  const why = await end.why;
  log.info("shutting down", { why, unanswered: wire.budget.unanswered });
  await shutDown({
    drain: why === "stdin closed" ? Promise.race([wire.idle(), end.signalled]) : undefined,
    signalled: end.signalled,
    wire,
    cancel: () => shutdown.abort(),
    cleanup: async () => {
      await machinery?.turns.shutdown();
      await connection.shutdown();
    },
    connection,
    log,
  });
  await settlesWithin(handle.close(), 100);
  end.stopWatching();
  await settlesWithin(wire.releaseOutput(), ANSWER_MS);
  log.info("stopped", { spawned: connection.stats.spawned });
  return 0;
}

/**
 * How long a shutdown waits for turns to be interrupted and helpers to be
 * reaped before it kills what is left: the whole shutdown takes at most 2 s.
 */
export const SHUTDOWN_GRACE_MS = 1_500;

/**
 * How long, after stdin EOF, the calls read before it run on untouched
 * before they are cancelled (less when they all answer sooner). Part of
 * {@linkcode SHUTDOWN_GRACE_MS}.
 */
export const DRAIN_MS = 800;

/**
 * How long, after SIGINT or SIGTERM, turns and helpers get to end on their
 * own before their process groups are killed: a client that sends a signal
 * waits about 100 ms (Claude Code) before it sends a harder one.
 */
export const SIGNAL_GRACE_MS = 10;

/** How long the last answers get to be written, twice: by their calls, then by the relay. */
const ANSWER_MS = 100;

/**
 * What ends the serving: the input's end, the connection closing, or the
 * stop signal (`signalled`: the calls read before the input's end are not
 * waited for then; its reason, e.g. the CLI's "SIGTERM", is the log's why).
 */
function endings(wire: LineStdioTransport, stop: AbortSignal | undefined) {
  const why = Promise.withResolvers<string>();
  const signalled = Promise.withResolvers<void>();
  const entryOnClose = wire.onclose;
  wire.onclose = () => {
    entryOnClose?.();
    why.resolve("connection closed");
  };
  wire.oninputend = () => why.resolve("stdin closed");
  const onStop = () => {
    why.resolve(typeof stop?.reason === "string" ? stop.reason : "stopped");
    signalled.resolve();
  };
  if (stop?.aborted) onStop();
  stop?.addEventListener("abort", onStop);
  const stopWatching = () => stop?.removeEventListener("abort", onStop);
  return { why: why.promise, signalled: signalled.promise, stopWatching };
}

/** What {@linkcode shutDown} ends. */
interface Ending {
  /** After stdin EOF: settles once the calls read before it are answered (or a signal came). */
  drain: Promise<unknown> | undefined;
  /** Settles when SIGINT or SIGTERM came (before or during the shutdown). */
  signalled: Promise<void>;
  wire: LineStdioTransport;
  /** Cancels every call. */
  cancel(): void;
  /** Ends the turns and the connection. */
  cleanup(): Promise<void>;
  connection: Connection;
  log: Logger;
}

/**
 * The shutdown, within {@linkcode SHUTDOWN_GRACE_MS} plus the last answers:
 * the calls read before stdin EOF run on for up to {@linkcode DRAIN_MS};
 * then every call is cancelled, turns and helpers end (killed when out of
 * time, or {@linkcode SIGNAL_GRACE_MS} after a signal), and every request
 * still owed an answer gets one.
 */
async function shutDown(e: Ending): Promise<void> {
  const began = performance.now();
  if (e.drain) await settlesWithin(e.drain, DRAIN_MS);
  e.cancel();
  const graceMs = SHUTDOWN_GRACE_MS - (performance.now() - began);
  let signalled = false;
  void e.signalled.then(() => (signalled = true));
  if (!(await cleansWithin(e.cleanup(), graceMs, e.signalled))) {
    const killed = await e.connection.kill();
    if (signalled) e.log.info("signalled: helpers killed", { graceMs: SIGNAL_GRACE_MS, killed });
    else e.log.warn("shutdown out of time: helpers killed", { graceMs: SHUTDOWN_GRACE_MS, killed });
  }
  // Cancelled calls answer at once; an open `subscriptions/listen` (Claude Code's, from its
  // first 20 ms) no cancel ends: it is answered now, or the wait below would last its whole
  // 100 ms and Claude Code (SIGTERM 100 ms after SIGINT) log "SIGINT failed" (issue 47).
  e.wire.answerOwed(true);
  await settlesWithin(e.wire.idle(), ANSWER_MS);
  const owed = e.wire.answerOwed();
  if (owed > 0) e.log.warn("answered at shutdown", { requests: owed });
  await settlesWithin(e.wire.idle(), ANSWER_MS);
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let id: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (id = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const, () => true as const), timeout]);
  } finally {
    clearTimeout(id);
  }
}

/**
 * What the flags ask for beyond the default surface, loaded at the start, not with the relay:
 * the tools served, git and the worktrees' folder, and the turn machinery (above the default
 * level only: its two tools never use it).
 */
async function levelParts(
  flags: ServeFlags,
  deps: {
    connection: Connection;
    clock: Clock;
    log: Logger;
    queuedHere: QueuedHere;
    shutdown: AbortSignal;
  },
): Promise<{
  tools: readonly Tool<z.ZodType, z.ZodType>[];
  worktrees: WorktreeDeps | undefined;
  machinery: TurnMachinery | undefined;
}> {
  const caps = capabilitiesOf(flags);
  const machinery = async () =>
    (await import("../turn/turn_machinery.ts")).turnMachinery({
      connection: deps.connection,
      clock: deps.clock,
      log: deps.log,
      readsReplies: caps.replyRead,
      autoApproveMcpTools: flags.autoApproveMcpTools,
      disabledMcpServers: flags.disableCodexMcpServers,
      queuedHere: deps.queuedHere,
    });
  const [tools, worktrees, turns] = await Promise.all([
    servedTools(caps),
    worktreeDeps(flags, deps.shutdown),
    isDefaultLevel(caps) ? undefined : machinery(),
  ]);
  return { tools, worktrees, machinery: turns };
}

/** Seals the input rounds' state (a key of this process, 10 minutes). */
function roundCodec() {
  return createRequestStateCodec<RoundState>({
    key: crypto.getRandomValues(new Uint8Array(32)),
    ttlSeconds: 600,
  });
}

/**
 * Git and the worktrees' folder, with `--allow-worktrees` (side-effect free:
 * nothing runs yet); git still running at the shutdown is killed.
 */
async function worktreeDeps(
  flags: ServeFlags,
  shutdown: AbortSignal,
): Promise<WorktreeDeps | undefined> {
  if (!flags.worktrees) return undefined;
  const [{ gitRunner }, { worktreesRoot }] = await Promise.all([
    import("../connect/process/git_runner.ts"),
    import("../ops/worktree_record.ts"),
  ]);
  const env = (name: string) => Deno.env.get(name);
  const root = worktreesRoot({ CODEX_HOME: env("CODEX_HOME"), HOME: env("HOME") });
  return root === undefined
    ? undefined
    : { git: gitRunner(flags.worktrees.git, { signal: shutdown }), root };
}

/**
 * Whether `cleanup` settles within `ms`, or, once `signalled` settles,
 * within {@linkcode SIGNAL_GRACE_MS} of it (when that is sooner).
 */
async function cleansWithin(
  cleanup: Promise<unknown>,
  ms: number,
  signalled: Promise<void>,
): Promise<boolean> {
  const deadline = performance.now() + ms;
  const outOfTime = Promise.withResolvers<false>();
  let id: ReturnType<typeof setTimeout> | undefined;
  let done = false;
  const arm = (after: number) => {
    clearTimeout(id);
    id = setTimeout(() => outOfTime.resolve(false), Math.max(0, after));
  };
  arm(ms);
  void signalled.then(() => {
    if (!done && performance.now() + SIGNAL_GRACE_MS < deadline) arm(SIGNAL_GRACE_MS);
  });
  try {
    return await Promise.race([cleanup.then(() => true, () => true), outOfTime.promise]);
  } finally {
    done = true;
    clearTimeout(id);
  }
}
