/**
 * The spawn backend: a private `codex app-server` (a helper) per operation.
 * One operation (one tool call) runs its RPCs sequentially on its own helper
 * under the method allowlist, per-RPC and per-operation budgets, a frame
 * bound, and cancellation; then reaps it. Turn runtimes hold a helper each.
 * @module
 */

import { notWritten } from "../_shared.ts";
import { abortReason, RelayError } from "../../core/errors.ts";
import { formatBound } from "../../core/duration.ts";
import { type Logger, silentLogger } from "../../core/log.ts";
import { type Clock, systemClock } from "../../core/clock.ts";
import { loaderVarsNote } from "../process/child_env.ts";
import {
  DEFAULT_REAP,
  HelperProcess,
  type HelperSpec,
  type ReapTimings,
} from "../process/helper_process.ts";
import { DEFAULT_SPAWN_LIMITS, type SpawnLimits } from "./spawn_limits.ts";
import { Slots } from "../slots.ts";
import { RpcConnection } from "../rpc_connection.ts";
import type { Method } from "../../codex/methods.ts";
import {
  checkAllowed,
  holdBudgetMs,
  operationBudgetMs,
  OperationFrame,
} from "../operation_frame.ts";
import { LineTransport } from "./line_transport.ts";
import {
  type BackendCapabilities,
  type CallOptions,
  type Connection,
  type ConnectionStats,
  type HeldConnection,
  type HoldOptions,
  lowerOnly,
  type OperationOptions,
  type Session,
  typedCall,
} from "../connection.ts";

/** Options of a {@linkcode SpawnConnection}. */
export interface SpawnOptions {
  /** Methods helpers may be sent (besides `initialize`). */
  allowlist: ReadonlySet<Method>;
  /** The relay's version, sent in `initialize`. */
  version: string;
  /** The executable (default `codex`). */
  command?: string;
  /**
   * Exactly this helper environment (tests). Default: the relay's own
   * environment, inherited as the MCP client gave it (`child_env.ts`).
   */
  env?: Record<string, string>;
  /** Lower bounds than the defaults (never higher). */
  limits?: Partial<SpawnLimits>;
  /** Time source of budgets. */
  clock?: Clock;
  /** Reap grace periods. */
  reap?: ReapTimings;
  /** Logger (stderr). */
  log?: Logger;
}

interface Live {
  helper: HelperProcess;
  connection: RpcConnection;
  release: () => void;
  closing?: Promise<void>;
}

/** The spawn backend: a private helper per operation. */
export class SpawnConnection implements Connection {
  /** A private helper per operation: it sees only its own turns, which end with it. */
  readonly capabilities: Readonly<BackendCapabilities> = Object.freeze({
    shared: false,
    seesOtherProcessesTurns: false,
    turnsOutliveRelay: false,
    attachesToRunningTurns: false,
  });
  readonly #allow: ReadonlySet<Method>;
  readonly #version: string;
  readonly #command: string;
  /** Exactly this environment (tests), or undefined: the relay's own, inherited. */
  readonly #env: Record<string, string> | undefined;
  readonly #limits: SpawnLimits;
  readonly #clock: Clock;
  readonly #reap: ReapTimings;
  readonly #log: Logger;
  readonly #slots: Slots;
  readonly #live = new Set<Live>();
  readonly #shutdown = new AbortController();
  #spawned = 0;

  constructor(options: SpawnOptions) {
    this.#allow = options.allowlist;
    this.#version = options.version;
    this.#command = options.command ?? "codex";
    this.#env = options.env;
    this.#limits = lowerOnly(DEFAULT_SPAWN_LIMITS, options.limits ?? {});
    this.#clock = options.clock ?? systemClock;
    this.#reap = options.reap ?? DEFAULT_REAP;
    this.#log = options.log ?? silentLogger;
    this.#slots = new Slots(this.#limits.helpers, this.#limits.queue, "helpers");
  }

  /** The bounds in force. */
  get limits(): Readonly<SpawnLimits> {
    return this.#limits;
  }

  /** The time source of budgets (operations that wait use it for their pauses). */
  get clock(): Clock {
    return this.#clock;
  }

  /** Live counters. */
  get stats(): ConnectionStats {
    return {
      alive: this.#live.size,
      peak: this.#slots.peak,
      spawned: this.#spawned,
      waiting: this.#slots.waiting,
    };
  }

  /**
   * Runs `fn` as one operation: its RPCs share one budget and one helper
   * (spawned on the first call), and the helper is reaped before this
   * resolves, whatever happened.
   */
  async operation<T>(
    fn: (session: Session) => Promise<T>,
    options: OperationOptions = {},
  ): Promise<T> {
    const frame = new OperationFrame(
      operationBudgetMs(this.#limits, options.budgetMs),
      this.#clock,
      { caller: options.signal, shutdown: this.#shutdown.signal },
    );
    const signal = frame.signal;
    let live: Live | undefined;
    let used = 0;
    const onAbort = () => {
      if (live) void this.#close(live, abortReason(signal, true));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const remainingMs = () => frame.remainingMs();
    const session: Session = {
      signal,
      remainingMs,
      call: typedCall(async (method, params) => {
        checkAllowed(this.#allow, method, this.#log);
        if (signal.aborted) throw abortReason(signal, false);
        if (!live || live.connection.failure) {
          if (live) await this.#close(live);
          if (used >= this.#limits.connectionsPerOperation) {
            throw new RelayError("protocol_error", "The operation used all its helpers", {
              written: false,
            });
          }
          used++;
          live = await this.#open(signal, remainingMs);
        }
        const timeoutMs = Math.min(this.#limits.rpcTimeoutMs, remainingMs());
        this.#log.debug("rpc", { method, pid: live.helper.pid, op: options.label });
        try {
          return await live.connection.request(method, params, { timeoutMs, signal });
        } catch (error) {
          if (
            error instanceof RelayError &&
            (error.reason === "timeout" || error.reason === "cancelled")
          ) {
            // A late answer is useless and a stuck helper is dangerous: reap now.
            void this.#close(live);
          }
          throw error;
        }
      }),
    };
    try {
      return await fn(session);
    } finally {
      frame.end();
      signal.removeEventListener("abort", onAbort);
      if (live) await this.#close(live);
    }
  }

  /**
   * Opens a helper connection held beyond one operation (a turn runtime). It
   * takes a helper slot until closed. Waiting for a free slot, spawn and
   * initialize share `budgetMs`: when no slot frees up in time it fails `busy`,
   * as an operation does.
   */
  async hold(options: HoldOptions = {}): Promise<HeldConnection> {
    const budget = holdBudgetMs(this.#limits, options.budgetMs);
    const frame = new OperationFrame(
      budget,
      this.#clock,
      { caller: options.signal, shutdown: this.#shutdown.signal },
      new RelayError("timeout", `No helper was ready within ${formatBound(budget)}`, {
        written: true,
      }),
    );
    let live: Live;
    try {
      live = await this.#open(frame.signal, () => frame.remainingMs());
    } catch (error) {
      if (!(error instanceof RelayError && error.reason === "busy" && frame.spent)) {
        throw error;
      }
      throw new RelayError(
        "busy",
        `All ${this.#limits.helpers} helpers stayed in use for ${
          Math.round(budget / 1000)
        } s (each turn codex-relay runs holds one until it ends)`,
        { written: false },
      );
    } finally {
      frame.end();
    }
    const onShutdown = () => void this.#close(live);
    this.#shutdown.signal.addEventListener("abort", onShutdown, { once: true });
    return {
      follow: () => {},
      ended: live.connection.ended,
      get failure() {
        return live.connection.failure;
      },
      listen: (listeners) => live.connection.listen(listeners),
      respond: (id, result) => live.connection.respond(id, result),
      respondError: (id, code, message) => live.connection.respondError(id, code, message),
      call: typedCall<CallOptions>((method, params, callOptions = {}) => {
        checkAllowed(this.#allow, method, this.#log);
        const timeoutMs = Math.min(
          callOptions.timeoutMs ?? this.#limits.rpcTimeoutMs,
          this.#limits.rpcTimeoutMs,
        );
        return live.connection.request(method, params, { timeoutMs, signal: callOptions.signal });
      }),
      close: () => {
        this.#shutdown.signal.removeEventListener("abort", onShutdown);
        return this.#close(live);
      },
    };
  }

  /** Cancels every operation and reaps every helper (each within its reap bound). */
  async shutdown(): Promise<void> {
    this.#shutdown.abort(new RelayError("cancelled", "codex-relay is shutting down"));
    await Promise.all([...this.#live].map((live) => this.#close(live)));
  }

  /**
   * SIGKILLs every live helper's process group at once, with no grace, and
   * stops reading their pipes: the last step of a shutdown out of time.
   * Returns how many helpers were still alive.
   */
  async kill(): Promise<number> {
    this.#shutdown.abort(new RelayError("cancelled", "codex-relay is shutting down"));
    const live = [...this.#live];
    await Promise.all(live.map((l) => l.helper.kill()));
    return live.length;
  }

  async #open(signal: AbortSignal, remainingMs: () => number): Promise<Live> {
    let release: () => void;
    try {
      release = await this.#slots.acquire(signal);
    } catch (error) {
      throw notWritten(error instanceof RelayError && error.reason === "timeout" ? busy() : error);
    }
    if (signal.aborted) {
      release();
      throw abortReason(signal, false);
    }
    let helper: HelperProcess;
    try {
      helper = HelperProcess.spawn(
        {
          command: this.#command,
          args: ["app-server"],
          env: this.#env ?? {},
          inherit: this.#env === undefined,
        } satisfies HelperSpec,
        this.#limits.stderrBytes,
        this.#reap,
      );
    } catch (error) {
      release();
      throw notWritten(error);
    }
    this.#spawned++;
    if (helper.loaderVars.length > 0) this.#log.warn(loaderVarsNote(helper.loaderVars));
    const connection = new RpcConnection(
      new LineTransport(helper, this.#limits.frameBytes),
      this.#clock,
    );
    const live: Live = { helper, connection, release };
    this.#live.add(live);
    this.#log.debug("spawn", { pid: helper.pid });
    try {
      await connection.request("initialize", {
        clientInfo: { name: "codex_relay", title: "codex-relay", version: this.#version },
        capabilities: { experimentalApi: true },
      }, { timeoutMs: Math.min(this.#limits.rpcTimeoutMs, remainingMs()), signal });
      connection.notify("initialized");
    } catch (error) {
      await this.#close(live);
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
    return live;
  }

  #close(
    live: Live,
    why = new RelayError("cancelled", "The helper was reaped", { written: true }),
  ): Promise<void> {
    live.closing ??= (async () => {
      live.connection.close(why);
      await live.helper.reap();
      await live.connection.drained;
      this.#live.delete(live);
      live.release();
      this.#log.debug("reaped", { pid: live.helper.pid });
    })();
    return live.closing;
  }
}

function busy(): RelayError {
  return new RelayError("busy", "No helper became free within the operation budget");
}
