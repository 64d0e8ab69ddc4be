/**
 * The spawn backend: private `codex app-server`s. Operations (one tool call
 * each) share a warm helper (`warm_helper.ts`), spawned by the first and
 * reaped once idle, each under the method allowlist, per-RPC and
 * per-operation budgets, a frame bound, and cancellation
 * (`../operation_frame.ts`). Turn runtimes hold views of one turn host
 * (`turn_host.ts`), apart from it: it takes none of the operations' slots.
 * @module
 */

import { RelayError } from "../../core/errors.ts";
import { formatBound } from "../../core/duration.ts";
import { type Logger, silentLogger } from "../../core/log.ts";
import { type Clock, systemClock } from "../../core/clock.ts";
import { DEFAULT_REAP, type ReapTimings } from "../process/helper_process.ts";
import { DEFAULT_SPAWN_LIMITS, SPAWN_CAPABILITIES, type SpawnLimits } from "./spawn_limits.ts";
import { Slots } from "../slots.ts";
import type { Method } from "../../codex/methods.ts";
import type { HelperRecipe } from "./open_helper.ts";
import { TurnHost } from "./turn_host.ts";
import { LOADING_METHODS, type Warm, WARM_IDLE_MS, WarmHelper } from "./warm_helper.ts";
import {
  type FrameBackend,
  holdBudgetMs,
  OperationFrame,
  runOperation,
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

/** The spawn backend: one warm helper for operations, and one turn host for every turn. */
export class SpawnConnection implements Connection {
  /** Private app-servers: they see only the relay's own turns, which end with the relay. */
  readonly capabilities: Readonly<BackendCapabilities> = SPAWN_CAPABILITIES;
  readonly #allow: ReadonlySet<Method>;
  readonly #limits: SpawnLimits;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #recipe: HelperRecipe;
  readonly #slots: Slots;
  readonly #turnHost: TurnHost;
  readonly #warm: WarmHelper;
  readonly #frame: FrameBackend<Warm>;
  readonly #shutdown = new AbortController();

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
    this.#slots = new Slots(this.#limits.inFlight, this.#limits.queue, "operation slots");
    this.#turnHost = new TurnHost(this.#recipe, this.#allow, this.#shutdown.signal);
    const warm = new WarmHelper(this.#recipe, WARM_IDLE_MS, this.#shutdown.signal);
    this.#warm = warm;
    this.#frame = {
      // A warm helper never loads a thread: a message queued to a stored thread stays stored.
      allow: new Set([...this.#allow].filter((method) => !LOADING_METHODS.has(method))),
      limits: this.#limits,
      clock: this.#clock,
      log: this.#log,
      shutdown: this.#shutdown.signal,
      slots: this.#slots,
      name: "codex app-server",
      usable: (signal) => warm.usable(signal),
      use: (link) => warm.use(link),
      stalled: (link, error) => warm.stalled(link, error),
    };
  }

  /** The bounds in force. */
  get limits(): Readonly<SpawnLimits> {
    return this.#limits;
  }

  /** The time source of budgets (operations that wait use it for their pauses). */
  get clock(): Clock {
    return this.#clock;
  }

  /** Live counters: `alive` counts the warm helper(s) and the turn host; `peak` operations in flight. */
  get stats(): ConnectionStats {
    return {
      alive: this.#warm.alive + this.#turnHost.alive,
      peak: this.#slots.peak,
      spawned: this.#warm.spawned + this.#turnHost.spawned,
      waiting: this.#slots.waiting,
      held: this.#turnHost.held,
    };
  }

  /**
   * Runs `fn` as one operation on the warm helper (spawned at the first RPC
   * when none is up; `warm_helper.ts`): its RPCs share one budget, and it
   * takes one of `inFlight` slots until `fn` settles.
   */
  operation<T>(fn: (session: Session) => Promise<T>, options: OperationOptions = {}): Promise<T> {
    return runOperation(this.#frame, fn, options);
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
    await Promise.all([this.#warm.shutdown(why), this.#turnHost.shutdown(why)]);
  }

  /**
   * SIGKILLs every live helper's and the turn host's process group at once,
   * with no grace: the last step of a shutdown out of time. Returns how many
   * were still alive.
   */
  async kill(): Promise<number> {
    this.#shutdown.abort(new RelayError("cancelled", "codex-relay is shutting down"));
    const [helpers, hosts] = await Promise.all([this.#warm.kill(), this.#turnHost.kill()]);
    return helpers + hosts;
  }
}
