/**
 * Starting one private `codex app-server` and initializing it: what an
 * operation's helper and the turn host both are. A helper that fails to
 * start or to initialize is reaped before the error is thrown.
 * @module
 */

import { notWritten } from "../_shared.ts";
import { RelayError } from "../../core/errors.ts";
import type { Logger } from "../../core/log.ts";
import type { Clock } from "../../core/clock.ts";
import { loaderVarsNote } from "../process/child_env.ts";
import { HelperProcess, type HelperSpec, type ReapTimings } from "../process/helper_process.ts";
import { RpcConnection } from "../rpc_connection.ts";
import { LineTransport } from "./line_transport.ts";
import type { SpawnLimits } from "./spawn_limits.ts";

/** How helpers are started. */
export interface HelperRecipe {
  /** The executable. */
  command: string;
  /** Exactly this environment (tests), or undefined: the relay's own, inherited. */
  env: Record<string, string> | undefined;
  /** The relay's version, sent in `initialize`. */
  version: string;
  limits: Readonly<SpawnLimits>;
  clock: Clock;
  reap: ReapTimings;
  log: Logger;
}

/** A started, initialized helper. */
export interface OpenedHelper {
  helper: HelperProcess;
  connection: RpcConnection;
}

/**
 * Spawns a helper and initializes it within `remainingMs()` (at most one RPC
 * timeout). `onSpawned` runs once the process exists (counting it, tracking it
 * for a kill) and returns how to close it, which a failed initialize awaits
 * before this throws. Every failure is `written: false`; an app-server that
 * exits before it answers is `spawn_failed` with its exit code.
 */
export async function openHelper(
  recipe: HelperRecipe,
  signal: AbortSignal,
  remainingMs: () => number,
  onSpawned: (helper: OpenedHelper) => () => Promise<void>,
): Promise<OpenedHelper> {
  const { limits, log } = recipe;
  let helper: HelperProcess;
  try {
    helper = HelperProcess.spawn(
      {
        command: recipe.command,
        args: ["app-server"],
        env: recipe.env ?? {},
        inherit: recipe.env === undefined,
      } satisfies HelperSpec,
      limits.stderrBytes,
      recipe.reap,
    );
  } catch (error) {
    throw notWritten(error);
  }
  if (helper.loaderVars.length > 0) log.warn(loaderVarsNote(helper.loaderVars));
  const connection = new RpcConnection(
    new LineTransport(helper, limits.frameBytes),
    recipe.clock,
  );
  const opened = { helper, connection };
  const close = onSpawned(opened);
  try {
    await connection.request("initialize", {
      clientInfo: { name: "codex_relay", title: "codex-relay", version: recipe.version },
      capabilities: { experimentalApi: true },
    }, { timeoutMs: Math.min(limits.rpcTimeoutMs, remainingMs()), signal });
    connection.notify("initialized");
  } catch (error) {
    await close();
    if (error instanceof RelayError && error.reason === "protocol_error" && helper.exited) {
      const status = await helper.status;
      throw new RelayError(
        "spawn_failed",
        `The app-server exited before it was ready (exit code ${status.code})`,
        { written: false, cause: error },
      );
    }
    throw notWritten(error);
  }
  return opened;
}
