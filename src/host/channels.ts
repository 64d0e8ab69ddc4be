/**
 * The Channels route of the push (`serve --channels`): when a run this relay
 * started ends while no tool call waits for it and the agent has not seen it
 * end, one `notifications/claude/channel` with the push text
 * (`push_text.ts`) and `meta {thread_id, client_message_id, status}`. At most
 * one per run; at most {@linkcode CHANNEL_RUNS_MAX} runs watched at once;
 * each is written as it comes (nothing is queued). Contract: docs/design.md,
 * "Push".
 * @module
 */

import type { Logger } from "../core/log.ts";
import type { FinishedRun } from "../turn/run_book.ts";
import type { TurnRegistry } from "../turn/turn_registry.ts";
import { waitResult } from "../turn/run_result.ts";
import { endsShown, pushText } from "./push_text.ts";

/** The experimental capability a relay with `--channels` declares. */
export const CHANNEL_CAPABILITY = "claude/channel";
/** The notification it sends. */
export const CHANNEL_METHOD = "notifications/claude/channel";
/** The most runs watched for a push at once (more are not pushed). */
export const CHANNEL_RUNS_MAX = 64;

/** The server options that declare it. */
export const CHANNEL_OPTIONS = {
  capabilities: { experimental: { [CHANNEL_CAPABILITY]: {} } },
} as const;

/** What a channel message is. */
export interface ChannelMessage {
  jsonrpc: "2.0";
  method: typeof CHANNEL_METHOD;
  params: {
    content: string;
    meta: { thread_id: string; client_message_id: string; status: string };
  };
}

/** What {@linkcode RunPush} needs. */
export interface RunPushDeps {
  /** Writes one message to the client. */
  send(message: ChannelMessage): Promise<void>;
  /** A run of this relay by its message: live (its end to come) or finished. */
  runOf(threadId: string, clientMessageId: string): Promise<FinishedRun> | undefined;
  log: Logger;
}

const RUN_TOOLS = new Set(["codex_run", "codex_review"]);

/**
 * Decides and sends the channel pushes of one server: told each call's
 * start ({@linkcode RunPush.callStarted}) and result
 * ({@linkcode RunPush.resulted}).
 *
 * @example
 * ```ts ignore
 * const push = new RunPush({ send: (m) => wire.send(m), runOf, log });
 * const done = push.callStarted("codex_wait_reply", args);
 * push.resulted("codex_wait_reply", out);
 * done();
 * ```
 */
export class RunPush {
  readonly #deps: RunPushDeps;
  /** Watched runs by message: how many tool calls wait on it now. */
  readonly #watched = new Map<string, { waits: number }>();

  constructor(deps: RunPushDeps) {
    this.#deps = deps;
  }

  /** The server options that declare the channel ({@linkcode CHANNEL_OPTIONS}). */
  readonly serverOptions = CHANNEL_OPTIONS;

  /** How many runs are watched now. */
  get watching(): number {
    return this.#watched.size;
  }

  /** A call starts: a `codex_wait_reply` waits on the messages it names until the returned function runs. */
  callStarted(tool: string, args: unknown): () => void {
    if (tool !== "codex_wait_reply") return () => {};
    const named = messagesNamed(args).map((id) => this.#watched.get(id)).filter((w) => w);
    for (const w of named) w!.waits++;
    return () => {
      for (const w of named) w!.waits--;
    };
  }

  /** A call's result: a run that goes on is watched; a message whose end it shows is seen. */
  resulted(tool: string, out: unknown): void {
    for (const id of endsShown(out)) this.#watched.delete(id);
    if (!RUN_TOOLS.has(tool)) return;
    const o = out as { receipt?: { status?: string; threadId?: string; clientMessageId?: string } };
    const r = o?.receipt;
    if (r?.status !== "queued" || !r.threadId || !r.clientMessageId) return;
    if (endsShown(out).length > 0 || this.#watched.has(r.clientMessageId)) return;
    if (this.#watched.size >= CHANNEL_RUNS_MAX) {
      this.#deps.log.warn("channels: too many runs watched; not pushed", { max: CHANNEL_RUNS_MAX });
      return;
    }
    const settled = this.#deps.runOf(r.threadId, r.clientMessageId);
    if (!settled) return;
    const id = r.clientMessageId;
    this.#watched.set(id, { waits: 0 });
    void settled.then((run) => this.#ended(id, run), () => this.#watched.delete(id));
  }

  async #ended(id: string, run: FinishedRun): Promise<void> {
    const w = this.#watched.get(id);
    this.#watched.delete(id);
    // Seen already, or a call waiting on it returns its end.
    if (!w || w.waits > 0) return;
    try {
      const result = waitResult({ kind: "settled", run });
      const status = result.turn?.status ?? result.status;
      await this.#deps.send({
        jsonrpc: "2.0",
        method: CHANNEL_METHOD,
        params: {
          content: pushText({ result }),
          meta: { thread_id: result.threadId, client_message_id: id, status },
        },
      });
    } catch (error) {
      this.#deps.log.warn("channels: not sent", { error: String(error).slice(0, 200) });
    }
  }
}

/**
 * The pushes of a server whose runs are in `turns`, written by `send`.
 *
 * @example
 * ```ts ignore
 * const push = runPushOn(turns, (m) => wire.send(m), log);
 * ```
 */
export function runPushOn(
  turns: TurnRegistry,
  send: RunPushDeps["send"],
  log: Logger,
): RunPush {
  return new RunPush({
    send,
    runOf: (threadId, clientMessageId) => {
      const run = turns.run(threadId);
      if (run?.clientMessageId === clientMessageId) return run.settled;
      const finished = turns.finished(threadId, clientMessageId);
      return finished ? Promise.resolve(finished) : undefined;
    },
    log,
  });
}

/** The messages a `codex_wait_reply` call names. */
function messagesNamed(args: unknown): string[] {
  const a = args as { clientMessageId?: unknown; messages?: { clientMessageId?: unknown }[] };
  const list = Array.isArray(a?.messages) ? a.messages : [a];
  // Stryker disable next-line MethodExpression,ConditionalExpression: runs are watched by string ids: any other id finds none either way
  return list.map((m) => m?.clientMessageId).filter((id): id is string => typeof id === "string");
}
