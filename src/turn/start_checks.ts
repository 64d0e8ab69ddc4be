/**
 * What a start (`turn_start.ts`) checks before it sends anything that starts
 * work: a login, the cwd of a new thread, an `outputSchema` (strict mode),
 * and the run's settings (against the configuration, what earlier runs left
 * with the thread, and the models Codex offers).
 * @module
 */

import { asRelayError, type ReasonCode, RelayError } from "../core/errors.ts";
import type { Session } from "../connect/connection.ts";
import { type AccountAnswer, LOGIN_FIX, loginState } from "../codex/account.ts";
import { type ModelInfo, unknownModel } from "../codex/models.ts";
import type { Logger } from "../core/log.ts";
import { serversToStart, type StartingServer } from "./mcp_startup.ts";
import { readConfig, recursionOverrides } from "./recursion_guard.ts";
import {
  type Applied,
  checkTightening,
  runConfig,
  type RunOptions,
  tighterOf,
} from "./run_options.ts";

/** Threads whose run settings are remembered (the oldest are forgotten first). */
const REMEMBERED_THREADS = 10_000;

/** Pages of `model/list` read at most (Codex's catalogue fits one). */
const MODEL_PAGES = 5;

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
 * The answer checker (`reply/structured.ts`), loaded by the first structured run: it
 * brings Ajv's meta-schema, which no other call needs (a third of the relay's start).
 */
export function structuredChecker(): Promise<typeof import("../reply/structured.ts")> {
  return import("../reply/structured.ts");
}

/** Why `schema` cannot be a structured run's `outputSchema` (strict mode), or undefined. */
export async function schemaProblem(schema: Record<string, unknown>): Promise<string | undefined> {
  const problem = (await structuredChecker()).checkOutputSchema(schema);
  if (!problem) return undefined;
  return `outputSchema ${problem.path || "(root)"}: ${problem.message} (rule ${problem.rule})`;
}

/**
 * The settings runs send their threads, checked before they are sent; what
 * they left with each thread is remembered (Codex keeps it for later turns).
 */
export class RunSettings {
  readonly #log: Logger;
  readonly #disabledMcpServers: readonly string[];
  /** What this relay's runs left with each thread. */
  readonly #applied = new Map<string, Applied>();
  /** The models Codex offers (`model/list`, every page), read once per process. */
  #models: readonly ModelInfo[] | undefined;

  constructor(log: Logger, disabledMcpServers: readonly string[]) {
    this.#log = log;
    this.#disabledMcpServers = disabledMcpServers;
  }

  /**
   * Reads the configuration once (`config/read` at the thread's cwd, so with
   * the layers a plain resume or start there applies): refuses options
   * looser than it or than what earlier runs left with `threadId` (none for
   * a new thread), and returns the `config` overrides (recursion guard,
   * effort) and the MCP servers a load with them starts. Options that pass
   * only tighten, so what they leave with the thread is never looser.
   */
  async check(
    session: Session,
    cwd: string,
    options: RunOptions,
    threadId?: string,
  ): Promise<{ config: Record<string, unknown>; servers: readonly StartingServer[] }> {
    if (options.model !== undefined || options.effort !== undefined) {
      // Refused (`unknown_model`): a model or effort Codex does not offer.
      const unknown = unknownModel(this.#models ??= await readModels(session), options);
      if (unknown) throw new RelayError("unknown_model", unknown);
    }
    const read = await readConfig(session.call, cwd, this.#log);
    checkTightening(read, options, threadId === undefined ? {} : this.#applied.get(threadId));
    const guard = recursionOverrides(read, this.#disabledMcpServers, this.#log);
    const config = runConfig(guard, options);
    return { config, servers: serversToStart(read, config, cwd) };
  }

  /**
   * Remembers what a start or resume with `options` leaves with the thread
   * (sent from here on: it may apply even when the start then fails).
   */
  remember(threadId: string, options: RunOptions): void {
    if (options.sandbox === undefined && options.approvalPolicy === undefined) return;
    const next = tighterOf(this.#applied.get(threadId) ?? {}, options);
    this.#applied.delete(threadId);
    this.#applied.set(threadId, next);
    if (this.#applied.size > REMEMBERED_THREADS) {
      this.#applied.delete(this.#applied.keys().next().value!);
    }
  }
}

/** Every page of `model/list` (at most {@linkcode MODEL_PAGES}). */
async function readModels(session: Session): Promise<ModelInfo[]> {
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
  return models;
}
