/**
 * What a start checks before it sends anything that starts work: a login,
 * the cwd of a new thread, the thread's cwd (for its config layers), an
 * `outputSchema` (strict mode), and the models Codex offers.
 * @module
 */

import { asRelayError, type ReasonCode, RelayError } from "../core/errors.ts";
import type { Session } from "../connect/connection.ts";
import { type AccountAnswer, LOGIN_FIX, loginState } from "../codex/account.ts";
import { type ModelInfo, unknownModel } from "../codex/models.ts";
import type { McpServerMissing, Receipt } from "../reply/schemas.ts";
import { mintRunId } from "../ops/run_id.ts";
import { checkOutputSchema } from "../reply/structured.ts";
import type { TurnRuntime } from "./turn_runtime.ts";
import type { Run } from "./run_book.ts";

/** Registers the run on its thread once the start knows it; undefined: the thread has a run. */
export type Claim = (threadId: string) => Run<TurnRuntime> | undefined;

/** How a start went: a runtime following the turn, or (`reason`, `message`) why there is none. */
export interface StartResult {
  receipt: Receipt;
  runtime?: TurnRuntime;
  reason?: ReasonCode;
  message?: string;
  /** The thread's MCP servers the turn runs without (failed, or not ready in time). */
  mcpServers?: McpServerMissing[];
}

/** The usual text of a start's reason (a message's start; a job says its own). */
export const REASON_MESSAGES: Partial<Record<ReasonCode, string>> = {
  turn_running:
    "codex-relay is already running a turn on this thread: follow it with codex_wait_reply or stop it with codex_interrupt",
  held_elsewhere:
    "Another Codex process has this thread open. The message stays queued: that process runs it after its own next turn completes",
};

/** Names a new thread; a failure is a note of the run. */
export async function nameThread(
  session: Session,
  runtime: TurnRuntime,
  name: string,
): Promise<void> {
  try {
    await session.call("thread/name/set", { threadId: runtime.threadId, name });
  } catch (error) {
    runtime.addNote(`The thread could not be named (${asRelayError(error).reason})`);
  }
}

/** Threads whose run settings are remembered (the oldest are forgotten first). */
export const REMEMBERED_THREADS = 10_000;

/** Pages of `model/list` read at most (Codex's catalogue fits one). */
const MODEL_PAGES = 5;

/** What a start's body reports. */
export interface Attempt {
  receipt?: Receipt;
  runtime?: TurnRuntime;
  reason?: ReasonCode;
  message?: string;
  failed?: boolean;
  /** The resolved thread, for the receipt of a start that failed before queueing. */
  threadId?: string;
  /** `message` says why, not the reason's usual text (a job: nothing was queued). */
  ownMessage?: boolean;
  mcpServers?: McpServerMissing[];
}

/**
 * Why no turn can run, asked of Codex before anything is queued
 * (`account/read`): no login and no key. A Codex that cannot answer the
 * question (an error answer) is not refused; the turn tells.
 */
export async function loginProblem(
  session: Session,
  env: (name: string) => string | undefined,
): Promise<{ reason: ReasonCode; message: string } | undefined> {
  let answer: AccountAnswer;
  try {
    answer = await session.call("account/read", {});
  } catch (error) {
    if (asRelayError(error).rpcCode !== undefined) return undefined;
    throw error;
  }
  if (loginState(answer, env).kind !== "not_logged_in") return undefined;
  return {
    reason: "not_logged_in",
    message:
      `Codex is not logged in and no API key variable is set, so the turn would fail. To fix: ${LOGIN_FIX}; then call codex_run again`,
  };
}

/**
 * Why `cwd` cannot be a new thread's directory, asked of Codex
 * (`fs/getMetadata`: the relay itself has no read permission); undefined
 * when it is a directory. Other failures (timeout, a dead helper) throw.
 */
export async function missingDirectory(session: Session, cwd: string): Promise<string | undefined> {
  try {
    const meta = await session.call("fs/getMetadata", { path: cwd });
    return meta.isDirectory ? undefined : `${cwd} is not a directory`;
  } catch (error) {
    const e = asRelayError(error);
    if (e.rpcCode === undefined) throw error;
    // A Codex without the method cannot tell; thread/start will.
    if (e.rpcCode === -32601) return undefined;
    return `${cwd} does not exist (Codex: ${e.message})`;
  }
}

/**
 * The thread's working directory, asked of Codex (`thread/read`, which reads
 * a stored thread without loading it). What a plain resume gives the thread
 * comes from that cwd's config layers (a trusted project's
 * `.codex/config.toml` over the user's), so its config is read there.
 */
export async function threadRead(
  session: Session,
  threadId: string,
): Promise<{ cwd: string; loaded: boolean }> {
  return await session.call("thread/read", { threadId });
}

/** A structured run refused before anything is sent: its schema breaks strict mode. */
export function schemaRefusal(
  schema: Record<string, unknown>,
  threadId: string,
): Promise<StartResult> | undefined {
  const problem = checkOutputSchema(schema);
  if (!problem) return undefined;
  const message = `outputSchema ${
    problem.path || "(root)"
  }: ${problem.message} (rule ${problem.rule})`;
  const receipt: Receipt = {
    status: "not_sent",
    reason: "invalid_schema",
    message,
    clientMessageId: mintRunId(),
    threadId,
  };
  return Promise.resolve({ receipt, reason: "invalid_schema", message });
}

/** The models Codex offers (`model/list`, every page), read once per process. */
export class ModelCatalogue {
  #list: readonly ModelInfo[] | undefined;

  /** Refuses (`unknown_model`) a model or effort Codex does not offer; reads nothing without one. */
  async check(session: Session, chosen: { model?: string; effort?: string }): Promise<void> {
    if (chosen.model === undefined && chosen.effort === undefined) return;
    const unknown = unknownModel(await this.list(session), chosen);
    if (unknown) throw new RelayError("unknown_model", unknown);
  }

  /** The models, read at the first call. */
  async list(session: Session): Promise<readonly ModelInfo[]> {
    if (this.#list) return this.#list;
    const models: ModelInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MODEL_PAGES; page++) {
      const listed = await session.call("model/list", {
        includeHidden: true,
        ...(cursor === undefined ? {} : { cursor }),
      });
      models.push(...listed.data);
      if (listed.nextCursor === null) break;
      cursor = listed.nextCursor;
    }
    this.#list = models;
    return models;
  }
}
