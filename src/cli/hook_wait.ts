/**
 * `hook-wait`: the command a Claude Code `PostToolUse` hook with
 * `asyncRewake: true` runs after `codex_run`, `codex_review`,
 * `codex_queue_message` and `codex_steer`. It reads the hook's JSON on stdin,
 * waits for that message's turn to end as `codex_wait_reply` does in a new
 * process (the wait engine's reads: the stored thread in spawn mode, the
 * daemon's thread live), and exits 2 with a short text (`push_text.ts`) that
 * wakes the agent. It exits 0 and says nothing when there is nothing to tell
 * (final already, followed by the agent, interrupted, the session gone), and
 * 1 with a line for the user when it cannot follow the run (Codex gone, the
 * thread unreadable): exit 1 wakes no one. No model tokens are spent while it
 * waits. Contract: docs/design.md, "Push".
 * @module
 */

import { parseStrict } from "../core/parse_strict.ts";
import { UsageError } from "../core/usage_error.ts";
import { type Clock, systemClock } from "../core/clock.ts";
import { type Logger, stderrLogger } from "../core/log.ts";
import { VERSION } from "../core/version.ts";
import { allowedMethods } from "../codex/methods.ts";
import { openConnection } from "../connect/open.ts";
import type { Connection } from "../connect/connection.ts";
import { readReply } from "../ops/read_reply.ts";
import { waitOn, type WaitPorts } from "../turn/wait_engine.ts";
import { waitResult } from "../turn/run_result.ts";
import { WAIT_MARGIN_MS, WAIT_SECONDS } from "../turn/wait_pacing.ts";
import type { WaitMessageResult } from "../reply/schemas.ts";
import { type ServeFlags, serveFlags } from "../host/serve_flags.ts";
import { pushText, stillRunningText } from "../host/push_text.ts";
import { followedInTranscript, type HookPlan, hookPlan, type HookRef } from "./hook_input.ts";

/** The default bound of a hook's wait, in minutes (`--timeout-minutes`). */
export const HOOK_WAIT_MINUTES = { min: 1, max: 1_440, default: 30 } as const;
/** How often hook-wait checks that its session is still there, in ms. */
export const SESSION_CHECK_MS = 1_000;
/** The most bytes of hook input read from stdin. */
export const HOOK_INPUT_MAX = 4 * 1024 * 1024;
/** The most bytes of the session's transcript read (its end). */
export const TRANSCRIPT_TAIL_MAX = 16 * 1024 * 1024;

/** How a hook ends: its exit code and what it writes to stderr. */
export type HookOutcome =
  | { exit: 0; why: "final" | "not_sent" | "not_a_result" | "followed" | "interrupted" | "ended" }
  | { exit: 1; text: string }
  | { exit: 2; text: string };

/** What {@linkcode followForHook} does through its caller. */
export interface HookDeps {
  clock: Pick<Clock, "now">;
  /** One bounded wait on the message (≤ 55 s): its `codex_wait_reply` result. */
  wait(ref: HookRef, ms: number): Promise<WaitMessageResult>;
  /** Whether the Claude Code session that ran the hook is still there. */
  sessionAlive(): boolean;
  /** Whether the agent followed the run itself (its transcript, when readable). */
  followed(plan: Extract<HookPlan, { kind: "wait" }>): Promise<boolean>;
}

/**
 * Follows the message of `plan` for up to `timeoutMs` and says how the hook
 * ends (see the module doc).
 *
 * @example
 * ```ts ignore
 * const outcome = await followForHook(hookPlan(input), 30 * 60_000, deps);
 * ```
 */
export async function followForHook(
  plan: HookPlan,
  timeoutMs: number,
  deps: HookDeps,
): Promise<HookOutcome> {
  if (plan.kind === "skip") return { exit: 0, why: plan.why };
  const deadline = deps.clock.now() + timeoutMs;
  while (true) {
    if (!deps.sessionAlive()) return { exit: 0, why: "ended" };
    const left = deadline - deps.clock.now();
    if (left <= 0) {
      return { exit: 2, text: stillRunningText(plan.ref, Math.round(timeoutMs / 60_000)) };
    }
    let result: WaitMessageResult;
    try {
      result = await deps.wait(plan.ref, Math.min(WAIT_SECONDS.max * 1000, left));
    } catch (error) {
      if (!deps.sessionAlive()) return { exit: 0, why: "ended" };
      return cannotFollow(error instanceof Error ? error.message : String(error));
    }
    // A wait cut short because the session ended says so as it stands: the session decides.
    if (!deps.sessionAlive()) return { exit: 0, why: "ended" };
    if (result.timedOut) continue;
    if (result.status !== "observed" || !result.turn) {
      return cannotFollow(`${result.status}${result.reason ? ` (${result.reason})` : ""}`);
    }
    if (result.turn.status === "interrupted") return { exit: 0, why: "interrupted" };
    if (await deps.followed(plan)) return { exit: 0, why: "followed" };
    return { exit: 2, text: pushText({ result, worktree: plan.worktree }) };
  }
}

function cannotFollow(why: string): HookOutcome {
  return { exit: 1, text: `codex-relay hook-wait: cannot follow the run: ${why}` };
}

const OPTIONS = {
  "timeout-minutes": { type: "string" },
  "app-server": { type: "string" },
  codex: { type: "string" },
  "log-level": { type: "string" },
} as const;

/** The usage of `hook-wait`. */
export const HOOK_WAIT_USAGE = `Usage: codex-relay hook-wait [options] < hook-input.json
  Run by a Claude Code PostToolUse hook (asyncRewake) after codex_run, codex_review,
  codex_queue_message and codex_steer: waits for the run's end and exits 2 with a short
  text that wakes the agent; exits 0 silently when there is nothing to tell.

Options:
  --timeout-minutes N    How long to wait (${HOOK_WAIT_MINUTES.min}..${HOOK_WAIT_MINUTES.max}, default ${HOOK_WAIT_MINUTES.default})
  --app-server MODE      spawn (default), daemon or unix:///absolute/path.sock, as serve's
  --codex PATH           The Codex to run, as serve's
  --log-level LEVEL      What is logged to stderr (default error)
`;

/**
 * The parsed `hook-wait` command line: the bound in minutes, and how Codex is reached.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(hookWaitArgs(["--timeout-minutes", "5"]).minutes, 5);
 * assert.deepEqual(hookWaitArgs([]).flags.appServer, { kind: "spawn" });
 * ```
 */
export function hookWaitArgs(args: readonly string[]): { minutes: number; flags: ServeFlags } {
  const { values, positionals } = parseStrict(args, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'`);
  const minutes = values["timeout-minutes"] === undefined
    ? HOOK_WAIT_MINUTES.default
    : Number(values["timeout-minutes"]);
  if (
    !Number.isInteger(minutes) || minutes < HOOK_WAIT_MINUTES.min ||
    minutes > HOOK_WAIT_MINUTES.max
  ) {
    throw new UsageError(
      `--timeout-minutes takes a whole number from ${HOOK_WAIT_MINUTES.min} to ${HOOK_WAIT_MINUTES.max}`,
    );
  }
  const value = values["app-server"];
  const flags = serveFlags({
    appServer: value?.startsWith("unix://") ? { socket: value.slice("unix://".length) } : value,
    codex: values.codex,
    logLevel: (values["log-level"] ?? "error") as "error",
  }, "flags");
  return { minutes, flags };
}

/**
 * The `hook-wait` command: resolves with its exit code, having written its
 * text (if any) to stderr. Reads its input from `stdin`.
 *
 * @example
 * ```ts ignore
 * const code = await hookWait(["--timeout-minutes", "30"], Deno.stdin.readable);
 * ```
 */
export async function hookWait(
  args: readonly string[],
  stdin: ReadableStream<Uint8Array>,
): Promise<{ code: number; text?: string }> {
  const { minutes, flags } = hookWaitArgs(args);
  const plan = hookPlan(parseJson(await readBounded(stdin, HOOK_INPUT_MAX)));
  if (plan.kind === "skip") return { code: 0 };
  const log = stderrLogger(flags.logLevel);
  const connection = await openConnection(flags.appServer, {
    allowlist: allowedMethods({ replyRead: true, turnStart: false }),
    version: VERSION,
    log,
    command: flags.codex,
  });
  // The session ended when Claude Code, the hook's parent (the hook execs), is gone: checked each
  // second, it ends the wait in progress.
  const parent = Deno.ppid;
  const ended = new AbortController();
  const watch = setInterval(() => Deno.ppid === parent || ended.abort(), SESSION_CHECK_MS);
  try {
    const outcome = await followForHook(plan, minutes * 60_000, {
      clock: systemClock,
      wait: (ref, ms) => waitOnce(connection, ref, ms, log, ended.signal),
      sessionAlive: () => !ended.signal.aborted && Deno.ppid === parent,
      followed: (p) => transcriptShowsFollowed(p),
    });
    return outcome.exit === 0 ? { code: 0 } : { code: outcome.exit, text: outcome.text };
  } finally {
    clearInterval(watch);
    await connection.shutdown();
  }
}

/** One wait of the wait engine on `ref`'s message, as `codex_wait_reply` reads it. */
async function waitOnce(
  connection: Connection,
  ref: HookRef,
  ms: number,
  log: Logger,
  signal: AbortSignal,
): Promise<WaitMessageResult> {
  const unused = () => {
    throw new Error("hook-wait follows no run of its own");
  };
  const ports: WaitPorts = {
    operation: (fn) =>
      connection.operation(fn, { signal, budgetMs: ms + WAIT_MARGIN_MS, label: "wait" }),
    read: readReply,
    readFollowed: unused,
    settled: unused,
    pending: () => [],
    askable: () => [],
    report: () => Promise.resolve(),
    ask: () => Promise.resolve("none"),
  };
  const options = {
    clock: systemClock,
    signal,
    log,
    timeoutMs: ms,
    until: "any" as const,
    progress: "detail" as const,
    fromStart: true,
  };
  const out = await waitOn([{ ref }], options, ports);
  if (out.kind !== "done") throw new Error("no input round in a hook");
  return waitResult(out.ends[0]);
}

/**
 * Whether the session's transcript shows the agent followed the run itself.
 * Needs read permission on the transcript (the hook's command line grants
 * Claude Code's projects folder); without it, it cannot tell and says no.
 */
async function transcriptShowsFollowed(plan: Extract<HookPlan, { kind: "wait" }>) {
  const path = plan.transcript;
  if (path === undefined) return false;
  if ((await Deno.permissions.query({ name: "read", path })).state !== "granted") return false;
  let file: Deno.FsFile | undefined;
  try {
    file = await Deno.open(path);
    const size = (await file.stat()).size;
    const from = Math.max(0, size - TRANSCRIPT_TAIL_MAX);
    await file.seek(from, Deno.SeekMode.Start);
    const buffer = new Uint8Array(size - from);
    let at = 0;
    while (at < buffer.length) {
      const n = await file.read(buffer.subarray(at));
      if (n === null) break;
      at += n;
    }
    return followedInTranscript(new TextDecoder().decode(buffer.subarray(0, at)), plan.ref);
  } catch {
    return false;
  } finally {
    file?.close();
  }
}

async function readBounded(stream: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    parts.push(chunk);
    size += chunk.length;
    if (size >= max) break;
  }
  const out = new Uint8Array(Math.min(size, max));
  let at = 0;
  for (const part of parts) {
    const take = part.subarray(0, out.length - at);
    out.set(take, at);
    at += take.length;
  }
  return out;
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
