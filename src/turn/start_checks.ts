/**
 * The checks a `codex_run` start asks Codex before it loads or queues
 * anything: a login or key (`account/read`), a new thread's directory
 * (`fs/getMetadata`), an existing thread's cwd and load status (`thread/read`).
 * @module
 */

import { asRelayError, type ReasonCode } from "../core/errors.ts";
import type { Session } from "../connect/connection.ts";
import { type AccountAnswer, LOGIN_FIX, loginState } from "../codex/account.ts";

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
