/**
 * The RPC owner: the only code that spawns processes. One operation (one tool
 * call) runs its RPCs sequentially on one owned helper under the method
 * allowlist, per-RPC and per-operation budgets, a frame bound, and
 * cancellation; then reaps it.
 * @module
 */

import { RelayError } from "../errors.ts";
import { type Logger, silentLogger } from "../log.ts";
import { type Clock, systemClock } from "./clock.ts";
import { curatedEnv } from "./curated_env.ts";
import {
  DEFAULT_REAP,
  HelperProcess,
  type HelperSpec,
  type ReapTimings,
} from "./helper_process.ts";
import { HelperSlots } from "./helper_slots.ts";
import { abortReason, type ConnectionListeners, RpcConnection } from "./rpc_connection.ts";

/** The owner's bounds (DESIGN.md, "Bounds"). */
export interface OwnerLimits {
  /** One RPC. */
  rpcTimeoutMs: number;
  /** One operation, shared by all its RPCs. */
  operationMs: number;
  /**
   * The longest budget an operation may ask for explicitly
   * ({@linkcode OperationOptions.budgetMs}, e.g. `codex_wait_reply`).
   */
  maxOperationMs: number;
  /** One frame from a helper, in bytes. */
  frameBytes: number;
  /** Helper stderr kept, in bytes. */
  stderrBytes: number;
  /** Helpers alive at once. */
  helpers: number;
  /** Operations waiting for a helper. */
  queue: number;
  /** Sequential helpers one operation may use. */
  helpersPerOperation: number;
}

/** The default bounds. */
export const DEFAULT_LIMITS: Readonly<OwnerLimits> = Object.freeze({
  rpcTimeoutMs: 12_000,
  operationMs: 20_000,
  maxOperationMs: 60_000,
  frameBytes: 1024 * 1024,
  stderrBytes: 16 * 1024,
  helpers: 4,
  queue: 64,
  helpersPerOperation: 3,
});

/** Options of an {@linkcode Owner}. */
export interface OwnerOptions {
  /** Methods helpers may be sent (besides `initialize`). */
  allowlist: ReadonlySet<string>;
  /** The relay's version, sent in `initialize`. */
  version: string;
  /** The executable (default `codex`). */
  command?: string;
  /** Helper environment (default: the curated pass-through set). */
  env?: Record<string, string>;
  /** Lower bounds than the defaults (never higher). */
  limits?: Partial<OwnerLimits>;
  /** Time source of budgets. */
  clock?: Clock;
  /** Reap grace periods. */
  reap?: ReapTimings;
  /** Logger (stderr). */
  log?: Logger;
}

/** Per-operation options. */
export interface OperationOptions {
  /** Cancels the operation and reaps its helper at once. */
  signal?: AbortSignal;
  /**
   * This operation's budget instead of the default `operationMs`: lower, or
   * higher up to `maxOperationMs` (for an operation that waits on purpose).
   */
  budgetMs?: number;
  /** A name for logs. */
  label?: string;
}

/** What an operation's function gets: sequential RPCs on one owned helper. */
export interface Session {
  /**
   * Sends one RPC and resolves with its raw result. The first call spawns and
   * initializes the helper. A method outside the allowlist is refused
   * (`not_allowed`) without spawning or writing anything.
   */
  call(method: string, params: unknown): Promise<unknown>;
  /** Aborted when the operation is cancelled or its budget is spent. */
  readonly signal: AbortSignal;
  /** Milliseconds left of the operation budget. */
  remainingMs(): number;
  /** Helpers spawned so far by this operation. */
  readonly helpersUsed: number;
}

/** A connection held open beyond one operation (turn runtimes). */
export interface HeldConnection {
  /** Sends one RPC (allowlist and per-RPC timeout apply). */
  call(
    method: string,
    params: unknown,
    options?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<unknown>;
  /** Sets the notification / server-request listeners. */
  listen(listeners: ConnectionListeners): void;
  /** Answers a server→client request. */
  respond(id: number | string, result: unknown): void;
  /** Answers a server→client request with an error. */
  respondError(id: number | string, code: number, message: string): void;
  /** Resolves with the error once the helper is gone. */
  readonly ended: Promise<RelayError>;
  /** The error that ended the connection, once it has ended (nothing more can be sent). */
  readonly failure: RelayError | undefined;
  /** The helper's pid. */
  readonly pid: number;
  /** Reaps the helper and frees its slot. Idempotent. */
  close(): Promise<void>;
}

/** Counters for tests and benchmarks. */
export interface OwnerStats {
  /** Helpers alive now. */
  alive: number;
  /** Most helpers alive at once. */
  peak: number;
  /** Helpers spawned in all. */
  spawned: number;
  /** Operations waiting for a helper. */
  waiting: number;
}

interface Live {
  helper: HelperProcess;
  connection: RpcConnection;
  release: () => void;
  closing?: Promise<void>;
}

/** The RPC owner. */
export class Owner {
  readonly #allow: ReadonlySet<string>;
  readonly #version: string;
  readonly #command: string;
  readonly #env: Record<string, string>;
  readonly #limits: OwnerLimits;
  readonly #clock: Clock;
  readonly #reap: ReapTimings;
  readonly #log: Logger;
  readonly #slots: HelperSlots;
  readonly #live = new Set<Live>();
  readonly #shutdown = new AbortController();
  #spawned = 0;

  constructor(options: OwnerOptions) {
    this.#allow = options.allowlist;
    this.#version = options.version;
    this.#command = options.command ?? "codex";
    this.#env = options.env ?? curatedEnv();
    this.#limits = lowerOnly(DEFAULT_LIMITS, options.limits ?? {});
    this.#clock = options.clock ?? systemClock;
    this.#reap = options.reap ?? DEFAULT_REAP;
    this.#log = options.log ?? silentLogger;
    this.#slots = new HelperSlots(this.#limits.helpers, this.#limits.queue);
  }

  /** The bounds in force. */
  get limits(): Readonly<OwnerLimits> {
    return this.#limits;
  }

  /** The time source of budgets (operations that wait use it for their pauses). */
  get clock(): Clock {
    return this.#clock;
  }

  /** The methods helpers may be sent. */
  get allowlist(): ReadonlySet<string> {
    return this.#allow;
  }

  /** Live counters. */
  get stats(): OwnerStats {
    return {
      alive: this.#live.size,
      peak: this.#slots.peak,
      spawned: this.#spawned,
      waiting: this.#slots.waiting,
    };
  }

  /** Whether `method` may be sent to a helper. */
  allows(method: string): boolean {
    return this.#allow.has(method);
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
    const budget = options.budgetMs === undefined
      ? this.#limits.operationMs
      : Math.min(options.budgetMs, this.#limits.maxOperationMs);
    const start = this.#clock.now();
    const deadline = new AbortController();
    const timer = this.#clock.after(budget, () =>
      deadline.abort(
        new RelayError(
          "timeout",
          `The operation did not finish within ${Math.round(budget / 1000)} s`,
          {
            written: true,
          },
        ),
      ));
    const signal = anySignal([options.signal, deadline.signal, this.#shutdown.signal]);
    let live: Live | undefined;
    let used = 0;
    const onAbort = () => {
      if (live) void this.#close(live, abortReason(signal, true));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const remainingMs = () => Math.max(0, budget - (this.#clock.now() - start));
    const session: Session = {
      signal,
      remainingMs,
      get helpersUsed() {
        return used;
      },
      call: async (method, params) => {
        this.#checkAllowed(method);
        if (signal.aborted) throw abortReason(signal, false);
        if (!live || live.connection.failure) {
          if (live) await this.#close(live);
          if (used >= this.#limits.helpersPerOperation) {
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
      },
    };
    try {
      return await fn(session);
    } finally {
      timer.cancel();
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
  async hold(options: { signal?: AbortSignal; budgetMs?: number } = {}): Promise<HeldConnection> {
    const budget = Math.min(options.budgetMs ?? this.#limits.operationMs, this.#limits.operationMs);
    const start = this.#clock.now();
    const deadline = new AbortController();
    const timer = this.#clock.after(budget, () =>
      deadline.abort(
        new RelayError("timeout", `No helper was ready within ${Math.round(budget / 1000)} s`, {
          written: true,
        }),
      ));
    const signal = anySignal([options.signal, deadline.signal, this.#shutdown.signal]);
    let live: Live;
    try {
      live = await this.#open(signal, () => Math.max(0, budget - (this.#clock.now() - start)));
    } finally {
      timer.cancel();
    }
    const onShutdown = () => void this.#close(live);
    this.#shutdown.signal.addEventListener("abort", onShutdown, { once: true });
    return {
      pid: live.helper.pid,
      ended: live.connection.ended,
      get failure() {
        return live.connection.failure;
      },
      listen: (listeners) => live.connection.listen(listeners),
      respond: (id, result) => live.connection.respond(id, result),
      respondError: (id, code, message) => live.connection.respondError(id, code, message),
      call: (method, params, callOptions = {}) => {
        this.#checkAllowed(method);
        const timeoutMs = Math.min(
          callOptions.timeoutMs ?? this.#limits.rpcTimeoutMs,
          this.#limits.rpcTimeoutMs,
        );
        return live.connection.request(method, params, { timeoutMs, signal: callOptions.signal });
      },
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

  #checkAllowed(method: string): void {
    if (!this.#allow.has(method)) {
      this.#log.warn("refused", { method });
      throw new RelayError("not_allowed", `${method} is not allowed at this capability level`, {
        written: false,
      });
    }
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
        { command: this.#command, args: ["app-server"], env: this.#env } satisfies HelperSpec,
        this.#limits.stderrBytes,
        this.#reap,
      );
    } catch (error) {
      release();
      throw notWritten(error);
    }
    this.#spawned++;
    const connection = new RpcConnection(helper, this.#limits.frameBytes, this.#clock);
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

/**
 * A {@linkcode Session} over a held connection, for code written against
 * sessions (queueing, reading) that runs on a turn runtime's helper. Its RPCs
 * share `budgetMs` (on `clock`), as an operation's do: each gets what is left
 * (at most one RPC timeout), and none is sent once it is spent.
 */
export function heldSession(
  conn: HeldConnection,
  signal: AbortSignal,
  budgetMs: number,
  clock: Clock = systemClock,
): Session {
  const start = clock.now();
  const remainingMs = () => Math.max(0, budgetMs - (clock.now() - start));
  return {
    call: (method, params) => {
      const timeoutMs = remainingMs();
      if (timeoutMs <= 0) {
        return Promise.reject(
          new RelayError(
            "timeout",
            `The operation did not finish within ${Math.round(budgetMs / 1000)} s`,
            { written: false },
          ),
        );
      }
      return conn.call(method, params, { signal, timeoutMs });
    },
    signal,
    remainingMs,
    helpersUsed: 1,
  };
}

function busy(): RelayError {
  return new RelayError("busy", "No helper became free within the operation budget");
}

function notWritten(error: unknown): RelayError {
  if (error instanceof RelayError) {
    return error.written
      ? new RelayError(error.reason, error.message, { written: false, cause: error })
      : error;
  }
  return new RelayError("spawn_failed", error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}

function lowerOnly(defaults: Readonly<OwnerLimits>, wanted: Partial<OwnerLimits>): OwnerLimits {
  const out = { ...defaults };
  for (const key of Object.keys(defaults) as (keyof OwnerLimits)[]) {
    const value = wanted[key];
    if (typeof value === "number" && value > 0 && value < defaults[key]) out[key] = value;
  }
  return out;
}

/** An AbortSignal that aborts with the reason of the first of `signals` to abort. */
function anySignal(signals: (AbortSignal | undefined)[]): AbortSignal {
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
}
