/**
 * The one factory of connections: from the `--app-server` value to a
 * {@linkcode Connection}, and the words that name it to a user. The layers
 * above `src/connect/` reach a backend only through here; none imports a
 * backend's module. A backend's code loads at its first operation or hold: a
 * relay answers `initialize` and `tools/list` without it (docs/reliability.md,
 * "Start-up").
 * @module
 */

import type { Logger } from "../core/log.ts";
import { type AppServerMode, startAdvice } from "./app_server_mode.ts";
import type { Method } from "../codex/methods.ts";
import {
  type BackendCapabilities,
  type Connection,
  type ConnectionLimits,
  type ConnectionStats,
  type HeldConnection,
  type HoldOptions,
  lowerOnly,
  type OperationOptions,
  type Session,
} from "./connection.ts";
import { type Clock, systemClock } from "../core/clock.ts";
import { RelayError } from "../core/errors.ts";
import { DEFAULT_SPAWN_LIMITS, SPAWN_CAPABILITIES } from "./spawn/spawn_limits.ts";
import { DAEMON_CAPABILITIES, DEFAULT_DAEMON_LIMITS } from "./daemon/daemon_limits.ts";

/** What every backend is opened with. */
export interface OpenOptions {
  /** Methods that may be sent (besides `initialize`). */
  allowlist: ReadonlySet<Method>;
  /** The relay's version, sent in `initialize`. */
  version: string;
  /** Logger (stderr). */
  log?: Logger;
  /** The executable (default `codex`). */
  command?: string;
  /** The environment of the processes the backend starts (default: the curated set). */
  env?: Record<string, string>;
  /** Lower bounds than the defaults (never higher). */
  limits?: Partial<ConnectionLimits>;
}

/**
 * The connection `target` names. Side-effect free: nothing is spawned or
 * dialled before the first RPC, and the backend's code loads at the first
 * operation or hold (only the backend named is ever loaded). Its capabilities
 * and bounds are known before.
 *
 * @example A spawn connection, before any call
 * ```ts
 * import assert from "assert";
 * const connection = await openConnection({ kind: "spawn" }, { allowlist: new Set(), version: "0.1.0" });
 * assert.equal(connection.capabilities.shared, false);
 * assert.equal(connection.stats.spawned, 0);
 * await connection.shutdown();
 * ```
 */
export function openConnection(
  target: AppServerMode,
  options: OpenOptions,
): Promise<Connection> {
  const wanted = options.limits ?? {};
  const connection = target.kind === "spawn"
    ? new LoadedOnUse(
      SPAWN_CAPABILITIES,
      lowerOnly(DEFAULT_SPAWN_LIMITS, wanted),
      async () => new (await import("./spawn/spawn_connection.ts")).SpawnConnection(options),
    )
    : new LoadedOnUse(
      DAEMON_CAPABILITIES,
      lowerOnly(DEFAULT_DAEMON_LIMITS, wanted),
      async () =>
        new (await import("./daemon/daemon_connection.ts")).DaemonConnection({
          ...options,
          target,
        }),
    );
  return Promise.resolve(connection);
}

/**
 * A backend that loads its code at its first operation or hold. Until then it
 * has started nothing: its counters are zero, a shutdown has nothing to end,
 * and after a shutdown it loads nothing more.
 */
class LoadedOnUse implements Connection {
  readonly capabilities: Readonly<BackendCapabilities>;
  readonly limits: Readonly<ConnectionLimits>;
  readonly clock: Clock = systemClock;
  readonly #load: () => Promise<Connection>;
  #backend: Connection | undefined;
  #loading: Promise<Connection> | undefined;
  #closed = false;

  constructor(
    capabilities: Readonly<BackendCapabilities>,
    limits: Readonly<ConnectionLimits>,
    load: () => Promise<Connection>,
  ) {
    this.capabilities = capabilities;
    this.limits = limits;
    this.#load = load;
  }

  get initializeResult(): unknown {
    return this.#backend?.initializeResult;
  }

  get stats(): ConnectionStats {
    return this.#backend?.stats ?? { alive: 0, peak: 0, spawned: 0, waiting: 0, held: 0 };
  }

  operation<T>(fn: (session: Session) => Promise<T>, options?: OperationOptions): Promise<T> {
    if (this.#backend) return this.#backend.operation(fn, options);
    return this.#loaded().then((backend) => backend.operation(fn, options));
  }

  hold(options?: HoldOptions): Promise<HeldConnection> {
    if (this.#backend) return this.#backend.hold(options);
    return this.#loaded().then((backend) => backend.hold(options));
  }

  async shutdown(): Promise<void> {
    this.#closed = true;
    await (await this.#settled())?.shutdown();
  }

  async kill(): Promise<number> {
    this.#closed = true;
    return (await (await this.#settled())?.kill()) ?? 0;
  }

  #loaded(): Promise<Connection> {
    if (this.#closed) {
      return Promise.reject(new RelayError("cancelled", "codex-relay is shutting down"));
    }
    return this.#loading ??= this.#load().then((backend) => (this.#backend = backend));
  }

  /** The backend once its loading (if one began) settled; undefined when none was loaded. */
  async #settled(): Promise<Connection | undefined> {
    return await this.#loading?.catch(() => undefined);
  }
}

/** How a report names the app-server `target` reaches: "codex app-server" or "the app-server daemon". */
export function appServerName(target: AppServerMode): string {
  return target.kind === "spawn" ? "codex app-server" : "the app-server daemon";
}

/** {@linkcode appServerName} with where a daemon is ("the app-server daemon (of CODEX_HOME)"). */
export function appServerLabel(target: AppServerMode): string {
  if (target.kind === "spawn") return appServerName(target);
  const where = target.kind === "unix" ? `socket ${target.path}` : "of CODEX_HOME";
  return `${appServerName(target)} (${where})`;
}

/** The fix for `daemon_unavailable` at `target`, or undefined where no daemon is involved. */
export function unavailableFix(target: AppServerMode): string | undefined {
  return target.kind === "spawn" ? undefined : startAdvice(target);
}
