/**
 * The spawn backend: a private `codex app-server` (a helper) per operation.
 * One operation (one tool call) runs its RPCs sequentially on its own helper
 * under the method allowlist, per-RPC and per-operation budgets, a frame
 * bound, and cancellation; then reaps it. Turn runtimes hold views of one
 * turn host (`turn_host.ts`), which takes none of the helpers' slots.
 * @module
 */

import { notWritten } from "../_shared.ts";
import { abortReason, RelayError } from "../../core/errors.ts";
import { formatBound } from "../../core/duration.ts";
import { type Logger, silentLogger } from "../../core/log.ts";
import { type Clock, systemClock } from "../../core/clock.ts";
import { DEFAULT_REAP, type ReapTimings } from "../process/helper_process.ts";
import { DEFAULT_SPAWN_LIMITS, type SpawnLimits } from "./spawn_limits.ts";
import { Slots } from "../slots.ts";
import type { Method } from "../../codex/methods.ts";
import { type HelperRecipe, type OpenedHelper, openHelper } from "./open_helper.ts";
import { TurnHost } from "./turn_host.ts";
import {
  checkAllowed,
  holdBudgetMs,
  operationBudgetMs,
  OperationFrame,
} from "../operation_frame.ts";
import {
  type BackendCapabilities,
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

interface Live extends OpenedHelper {
  release: () => void;
  closing?: Promise<void>;
}

/** The spawn backend: a private helper per operation, and one turn host for every turn. */
export class SpawnConnection implements Connection {
  /** Private app-servers: they see only the relay's own turns, which end with the relay. */
  readonly capabilities: Readonly<BackendCapabilities> = Object.freeze({
    shared: false,
  });
  readonly #allow: ReadonlySet<Method>;
  readonly #limits: SpawnLimits;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #recipe: HelperRecipe;
  readonly #slots: Slots;
  readonly #turnHost: TurnHost;
  readonly #live = new Set<Live>();
  readonly #shutdown = new AbortController();
  #spawned = 0;

  constructor(options: SpawnOptions) {
    this.#allow = options.allowlist;
    this.#limits = lowerOnly(DEFAULT_SPAWN_LIMITS, options.limits ?? {});
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log ?? silentLogger;
    this.#recipe = {
      command: options.command ?? "codex",
      env: options.env,
      version: options.version,
      limits: this.#limits,
      clock: this.#clock,
      reap: options.reap ?? DEFAULT_REAP,
      log: this.#log,
    };
    this.#slots = new Slots(this.#limits.helpers, this.#limits.queue, "helpers");
    this.#turnHost = new TurnHost(this.#recipe, this.#allow, this.#shutdown.signal);
  }

  /** The bounds in force. */
  get limits(): Readonly<SpawnLimits> {
    return this.#limits;
  }

  /** The time source of budgets (operations that wait use it for their pauses). */
  get clock(): Clock {
    return this.#clock;
  }

  /** Live counters: `alive` counts operations' helpers and the turn host. */
  get stats(): ConnectionStats {
    return {
      alive: this.#live.size + this.#turnHost.alive,
      peak: this.#slots.peak,
      spawned: this.#spawned + this.#turnHost.spawned,
      waiting: this.#slots.waiting,
      held: this.#turnHost.held,
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
   * A view of the turn host (one private app-server that runs every turn of
   * this relay, spawned at the first hold, reaped with its last view), held
   * beyond one operation (a turn runtime). It takes no helper slot. Past
   * `turns` held at once it fails `busy` at once; spawn and initialize share
   * `budgetMs`.
   */
  async hold(options: HoldOptions = {}): Promise<HeldConnection> {
    const budget = holdBudgetMs(this.#limits, options.budgetMs);
    const frame = new OperationFrame(
      budget,
      this.#clock,
      { caller: options.signal, shutdown: this.#shutdown.signal },
      new RelayError("timeout", `The turn host was not ready within ${formatBound(budget)}`, {
        written: false,
      }),
    );
    try {
      return await this.#turnHost.hold(frame.signal);
    } finally {
      frame.end();
    }
  }

  /** Cancels every operation and reaps every helper and the turn host (each within its reap bound). */
  async shutdown(): Promise<void> {
    const why = new RelayError("cancelled", "codex-relay is shutting down");
    this.#shutdown.abort(why);
    await Promise.all([
      ...[...this.#live].map((live) => this.#close(live)),
      this.#turnHost.shutdown(why),
    ]);
  }

  /**
   * SIGKILLs every live helper's and the turn host's process group at once,
   * with no grace: the last step of a shutdown out of time. Returns how many
   * were still alive.
   */
  async kill(): Promise<number> {
    this.#shutdown.abort(new RelayError("cancelled", "codex-relay is shutting down"));
    const live = [...this.#live];
    const [, hosts] = await Promise.all([
      Promise.all(live.map((l) => l.helper.kill())),
      this.#turnHost.kill(),
    ]);
    return live.length + hosts;
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
    let live: Live | undefined;
    try {
      await openHelper(this.#recipe, signal, remainingMs, (opened) => {
        this.#spawned++;
        live = { ...opened, release };
        this.#live.add(live);
        this.#log.debug("spawn", { pid: opened.helper.pid });
        return () => this.#close(live!);
      });
    } catch (error) {
      release(); // Idempotent: a helper that started was closed, which released it.
      throw error;
    }
    return live!;
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
