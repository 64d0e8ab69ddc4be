/**
 * The daemon backend: one long-lived connection to the user's shared
 * app-server (`codex app-server daemon`), opened on the first RPC and
 * multiplexing every operation. Per operation the allowlist, the per-RPC
 * timeout, the operation budget and the frame bound apply as in spawn mode;
 * at most `inFlight` operations hold the connection at once, `queue` more
 * wait, then `busy`. A lost connection fails what was in flight with
 * `connection_lost` (`written: true`: a queue write in flight is unknown) and
 * ends every held view at once; the next RPC reconnects. A lost daemon is
 * noticed while the connection is in use, and a connection found dead before
 * an operation writes is never written to (`liveness.ts`).
 *
 * Held connections are views that see only the thread they follow
 * (`../held_view.ts`, `../thread_routing.ts`); at most `turns` at once, then
 * `busy` at once.
 * @module
 */

import { notWritten } from "../_shared.ts";
import { RelayError } from "../../core/errors.ts";
import { formatBound } from "../../core/duration.ts";
import { type Logger, silentLogger } from "../../core/log.ts";
import { type Clock, systemClock } from "../../core/clock.ts";
import { curatedEnv } from "../process/curated_env.ts";
import { DEFAULT_REAP, type ReapTimings } from "../process/helper_process.ts";
import { DAEMON_CAPABILITIES, type DaemonLimits, DEFAULT_DAEMON_LIMITS } from "./daemon_limits.ts";
import { Slots } from "../slots.ts";
import {
  checkAllowed,
  type FrameBackend,
  holdBudgetMs,
  OperationFrame,
  type OperationLink,
  runOperation,
} from "../operation_frame.ts";
import { RpcConnection } from "../rpc_connection.ts";
import type { Method } from "../../codex/methods.ts";
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
import type { DaemonTarget } from "../app_server_mode.ts";
import { type Dialed, dialProxy } from "./proxy_dial.ts";
import { ThreadRouting, type View } from "../thread_routing.ts";
import { heldView } from "../held_view.ts";
import { TurnSeats } from "../turn_seats.ts";
import { Liveness } from "./liveness.ts";
import { SharedLink } from "../shared_link.ts";

/** Options of a {@linkcode DaemonConnection}. */
export interface DaemonOptions {
  /** Methods that may be sent (besides `initialize`). */
  allowlist: ReadonlySet<Method>;
  /** The relay's version, sent in `initialize`. */
  version: string;
  /** Which daemon (default: the one of the relay's CODEX_HOME). */
  target?: DaemonTarget;
  /** The executable (default `codex`). */
  command?: string;
  /** Proxy environment (default: the curated pass-through set). */
  env?: Record<string, string>;
  /** Lower bounds than the defaults (never higher). */
  limits?: Partial<DaemonLimits>;
  /** Time source of budgets. */
  clock?: Clock;
  /** Reap grace periods of the proxy. */
  reap?: ReapTimings;
  /** Logger (stderr). */
  log?: Logger;
  /** Opens the channel (tests); default: spawn `codex app-server proxy`. */
  dial?: (timeoutMs: number) => Promise<Dialed>;
}

interface Live extends OperationLink {
  dialed: Dialed;
  rpc: RpcConnection;
  views: Set<View>;
  info: unknown;
  liveness: Liveness;
}

/** The daemon backend. */
export class DaemonConnection implements Connection {
  /** The user's shared daemon: every thread's turns, which outlive the relay and can be attached to. */
  readonly capabilities: Readonly<BackendCapabilities> = DAEMON_CAPABILITIES;
  readonly #allow: ReadonlySet<Method>;
  readonly #version: string;
  readonly #limits: DaemonLimits;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #dial: (timeoutMs: number) => Promise<Dialed>;
  readonly #slots: Slots;
  readonly #shutdown = new AbortController();
  readonly #routing: ThreadRouting;
  readonly #seats: TurnSeats;
  /** The open connection, and ones being closed (shutdown waits for their proxies to exit). */
  readonly #link: SharedLink<Live>;
  #dialed = 0;
  readonly #frame: FrameBackend<Live>;

  constructor(options: DaemonOptions) {
    this.#allow = options.allowlist;
    this.#version = options.version;
    this.#limits = lowerOnly(DEFAULT_DAEMON_LIMITS, options.limits ?? {});
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log ?? silentLogger;
    this.#routing = new ThreadRouting(this.#log);
    this.#seats = new TurnSeats(this.#limits.turns, "in daemon mode");
    const target = options.target ?? { kind: "daemon" };
    const command = options.command ?? "codex";
    const env = options.env;
    this.#dial = options.dial ?? ((timeoutMs) =>
      dialProxy({
        command,
        env: env ?? curatedEnv(),
        target,
        frameBytes: this.#limits.frameBytes,
        stderrBytes: this.#limits.stderrBytes,
        reap: options.reap ?? DEFAULT_REAP,
        timeoutMs,
      }));
    this.#link = new SharedLink<Live>({
      open: (track) => this.#open(track),
      usable: (live) => !live.rpc.failure,
      end: (live, why) => this.#end(live, why),
      stop: this.#shutdown.signal,
    });
    this.#slots = new Slots(this.#limits.inFlight, this.#limits.queue, "operation slots");
    this.#frame = {
      allow: this.#allow,
      limits: this.#limits,
      clock: this.#clock,
      log: this.#log,
      shutdown: this.#shutdown.signal,
      slots: this.#slots,
      name: "the app-server daemon",
      usable: (signal) => this.#usable(signal),
      use: (live) => live.liveness.use(),
      watch: (threadId, onNotification) => this.#routing.watch(threadId, onNotification),
    };
  }

  /** The bounds in force. */
  get limits(): Readonly<DaemonLimits> {
    return this.#limits;
  }

  /** The time source of budgets. */
  get clock(): Clock {
    return this.#clock;
  }

  /** Live counters: `alive` is 1 while the connection is open, `spawned` counts proxies. */
  get stats(): ConnectionStats {
    return {
      alive: this.#link.current ? 1 : 0,
      peak: this.#slots.peak,
      spawned: this.#dialed,
      waiting: this.#slots.waiting,
      held: this.#seats.inUse,
    };
  }

  /** What the daemon answered to `initialize` on the open connection (for `doctor`). */
  get initializeResult(): unknown {
    return this.#link.current?.info;
  }

  /**
   * Runs `fn` as one operation on the shared connection. It takes one of the
   * `inFlight` slots at its first RPC and gives it back when `fn` settles.
   */
  operation<T>(fn: (session: Session) => Promise<T>, options: OperationOptions = {}): Promise<T> {
    return runOperation(this.#frame, fn, options);
  }

  /**
   * A view of the shared connection held beyond one operation. It takes no
   * operation slot; closing it detaches it and never closes the connection.
   * Past `turns` views at once it fails `busy` at once.
   */
  async hold(options: HoldOptions = {}): Promise<HeldConnection> {
    const seat = this.#seats.take();
    const budget = holdBudgetMs(this.#limits, options.budgetMs);
    const frame = new OperationFrame(
      budget,
      this.#clock,
      { caller: options.signal, shutdown: this.#shutdown.signal },
      new RelayError(
        "timeout",
        `The app-server daemon was not ready within ${formatBound(budget)}`,
      ),
    );
    let live: Live;
    try {
      live = await this.#usable(frame.signal);
    } catch (error) {
      seat();
      // Stryker disable BlockStatement: the finally block below: a listener left on the signal rejects a race that has settled: nothing happens
      throw error;
    } finally {
      // Stryker restore BlockStatement
      frame.end();
    }
    const unuse = live.liveness.use();
    return heldView({
      rpc: live.rpc,
      views: live.views,
      unuse: () => {
        unuse();
        seat();
      },
      routing: this.#routing,
      checkAllowed: (method) => checkAllowed(this.#allow, method, this.#log),
      rpcTimeoutMs: this.#limits.rpcTimeoutMs,
    });
  }

  /** Kills the proxies at once (their process groups); resolves with the processes killed. */
  kill(): Promise<number> {
    this.#shutdown.abort(new RelayError("cancelled", "codex-relay is shutting down"));
    return this.#link.kill((live) => live.dialed.kill());
  }

  /** Cancels every operation, detaches every view and closes the connection. */
  async shutdown(): Promise<void> {
    const why = new RelayError("cancelled", "codex-relay is shutting down");
    this.#shutdown.abort(why);
    await this.#link.shutdown(why);
  }

  /**
   * The open connection, probed before it is written to: one found dead is
   * closed (nothing was written to it) and the daemon redialled once.
   */
  async #usable(signal: AbortSignal): Promise<Live> {
    const live = await this.#link.get(signal);
    if (await live.liveness.probe()) return live;
    this.#log.info("daemon connection found dead before a write; redialling");
    return await this.#link.get(signal);
  }

  async #open(track: (live: Live) => void): Promise<Live> {
    this.#dialed++;
    const dialed = await this.#dial(this.#limits.rpcTimeoutMs).catch((error) => {
      throw notWritten(error);
    });
    // Stryker disable next-line ObjectLiteral: the routing always listens for server requests, so none is unhandled; calls fail with the transport's own closing error
    const rpc = new RpcConnection(dialed.transport, this.#clock, {
      // Stryker disable next-line StringLiteral: calls fail with the transport's own closing error (connection_lost), not this default
      lostReason: "connection_lost",
      // Stryker disable next-line BooleanLiteral: the routing always listens for server requests, so none is unhandled
      answerUnhandled: false,
    });
    const transport = dialed.transport;
    const liveness = new Liveness(
      transport.ping ? () => transport.ping!() : () => Promise.resolve(true),
      this.#clock,
      // A ping answered false because the channel ended with its own error: that error is the reason.
      (why) =>
        void this.#link.close(
          live,
          transport.failure ?? new RelayError("connection_lost", why, { written: true }),
        ),
    );
    const live: Live = {
      dialed,
      rpc,
      pid: dialed.pid,
      views: new Set(),
      info: undefined,
      liveness,
    };
    track(live);
    rpc.listen({
      onNotification: (method, params) => this.#routing.notification(live.views, method, params),
      onServerRequest: (request) => this.#routing.serverRequest(live.views, request),
      onActivity: () => {
        liveness.heard();
        for (const view of live.views) view.listeners.onActivity?.();
      },
    });
    void rpc.ended.then((error) => {
      liveness.stop();
      this.#log.info("daemon connection ended", { reason: error.reason });
      void this.#link.close(live, error);
    });
    this.#log.debug("daemon connecting", { pid: dialed.pid });
    try {
      live.info = await rpc.request("initialize", {
        clientInfo: { name: "codex_relay", title: "codex-relay", version: this.#version },
        capabilities: { experimentalApi: true },
      }, { timeoutMs: this.#limits.rpcTimeoutMs, signal: this.#shutdown.signal });
      rpc.notify("initialized");
    } catch (error) {
      await this.#link.close(live, asError(error));
      throw notWritten(error);
    }
    return live;
  }

  async #end(live: Live, why: RelayError): Promise<void> {
    live.rpc.close(why);
    await live.dialed.close();
    await live.rpc.drained;
  }
}

function asError(error: unknown): RelayError {
  // Stryker disable next-line ConditionalExpression: its one use closes a connection whose initialize failed: no view joined it and its only request has failed, so this error reaches no one (the caller gets notWritten(error))
  if (error instanceof RelayError) return error;
  // Stryker disable next-line StringLiteral: initialize fails with RelayErrors only (rpc_error, timeout, connection_lost)
  return new RelayError("connection_lost", error instanceof Error ? error.message : String(error));
}
