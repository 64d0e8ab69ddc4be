/**
 * The Connection seam: how everything above `src/connect/` reaches an
 * app-server. Operations (one tool call each) send RPCs through a
 * {@linkcode Session}; turn runtimes hold a {@linkcode HeldConnection} beyond
 * one operation. Backends (a spawned helper per operation, or the user's
 * shared daemon) implement {@linkcode Connection}; nothing above this module
 * sees a process, a socket or a frame. Every backend refuses methods outside
 * its allowlist before anything is sent.
 * @module
 */

import type { RelayError } from "../core/errors.ts";
import { budgetSpent } from "./budget.ts";
import { type Clock, systemClock } from "../core/clock.ts";
import type { RpcId } from "../codex/types.ts";
import { type Method, type ParamsOf, parseResult, type ResultOf } from "../codex/methods.ts";

/**
 * What a backend can do, where backends differ. The layers above
 * `src/connect/` ask this, never which backend it is, so another backend (a
 * direct socket, a remote app-server) plugs in by declaring its own. What
 * every backend does is no flag: a thread an app-server loaded stays loaded
 * while it runs (Codex unloads none on `thread/unsubscribe`), so `codex_run`
 * always subscribes before it queues.
 */
export interface BackendCapabilities {
  /**
   * The app-server is shared with other clients (Codex's TUI, other relays)
   * and outlives the relay (the daemon): it carries every thread's
   * notifications and server requests, so a runtime follows only its own
   * turn and its own requests; turns that other processes start are visible;
   * a turn keeps running when the relay exits, so at shutdown runtimes
   * detach, `codex_list_threads` lists the running turns of earlier relay
   * processes, and `codex_wait_reply` attaches to a running turn. A private
   * app-server (spawn) sees only what the relay itself started.
   */
  readonly shared: boolean;
}

/** A connection to an app-server: the seam every backend implements. */
export interface Connection {
  /** What this backend can do. */
  readonly capabilities: Readonly<BackendCapabilities>;
  /**
   * What the app-server answered to `initialize` on the connection now open,
   * where the backend keeps one open (a shared connection); else undefined.
   */
  readonly initializeResult?: unknown;
  /** The bounds in force. */
  readonly limits: Readonly<ConnectionLimits>;
  /** The time source of budgets (operations that wait use it for their pauses). */
  readonly clock: Clock;
  /** Live counters. */
  readonly stats: ConnectionStats;
  /**
   * Runs `fn` as one operation: its RPCs share one budget, and whatever the
   * backend opened for it is released before this resolves, whatever happened.
   */
  operation<T>(fn: (session: Session) => Promise<T>, options?: OperationOptions): Promise<T>;
  /**
   * Opens a connection held beyond one operation (a turn runtime). It takes
   * no operation's slot. Opening and initializing share `budgetMs`; past the
   * backend's bound of turns at once it fails `busy` at once.
   */
  hold(options?: HoldOptions): Promise<HeldConnection>;
  /** Cancels every operation and releases everything the backend holds. */
  shutdown(): Promise<void>;
  /**
   * Ends everything at once, whatever it is doing (the last step of a
   * shutdown out of time): kills every process it started, as a group.
   * Resolves with how many it killed.
   */
  kill(): Promise<number>;
}

/** Options of {@linkcode Connection.hold}. */
export interface HoldOptions {
  /** Cancels the opening. */
  signal?: AbortSignal;
  /** Budget of waiting for capacity + opening (at most the operation budget). */
  budgetMs?: number;
}

/**
 * The bounds every backend has (docs/design.md, "Bounds"); each backend adds
 * its own (the spawn backend's helpers alive at once, the daemon's operations
 * in flight).
 */
export interface ConnectionLimits {
  /** One RPC. */
  rpcTimeoutMs: number;
  /** One operation, shared by all its RPCs. */
  operationMs: number;
  /**
   * The longest budget an operation may ask for explicitly
   * ({@linkcode OperationOptions.budgetMs}, e.g. `codex_wait_reply`).
   */
  maxOperationMs: number;
  /** One frame from the app-server, in bytes. */
  frameBytes: number;
  /** Stderr kept of each process the backend starts (a helper, the proxy), in bytes. */
  stderrBytes: number;
  /** Operations waiting for the backend's capacity (then `busy`). */
  queue: number;
  /**
   * Connections one operation may use in turn when one is lost (sequential
   * helpers; dials of the daemon).
   */
  connectionsPerOperation: number;
}

/** The default bounds every backend has. */
export const DEFAULT_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  rpcTimeoutMs: 12_000,
  operationMs: 20_000,
  maxOperationMs: 60_000,
  frameBytes: 1024 * 1024,
  stderrBytes: 16 * 1024,
  queue: 64,
  connectionsPerOperation: 3,
});

/** Per-operation options. */
export interface OperationOptions {
  /** Cancels the operation and releases what the backend opened for it at once. */
  signal?: AbortSignal;
  /**
   * This operation's budget instead of the default `operationMs`: lower, or
   * higher up to `maxOperationMs` (for an operation that waits on purpose).
   */
  budgetMs?: number;
  /** A name for logs. */
  label?: string;
}

/** What an operation's function gets: its RPCs, sent one after another, within one budget. */
export interface Session {
  /**
   * Sends one RPC and resolves with its result, parsed by the method map
   * (`src/codex/methods.ts`; a malformed one rejects `protocol_error`). The
   * first call opens what the backend needs (spawns and initializes a helper;
   * takes a slot on the daemon connection). A method outside the allowlist is
   * refused (`not_allowed`) without opening or writing anything.
   */
  call<M extends Method>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  /** Aborted when the operation is cancelled or its budget is spent. */
  readonly signal: AbortSignal;
  /** Milliseconds left of the operation budget. */
  remainingMs(): number;
  /**
   * Observes one thread's notifications until the returned function is called
   * or the operation ends (a shared connection carries `thread/status/changed`
   * of every thread, so a wait can wake at once). Absent where the backend
   * sees no other process's threads (a private helper).
   */
  watch?(threadId: string, onNotification: (method: string, params: unknown) => void): () => void;
}

/** A connection held open beyond one operation (turn runtimes). */
export interface HeldConnection {
  /** Sends one RPC (allowlist and per-RPC timeout apply); its result parsed, as a session's. */
  call<M extends Method>(
    method: M,
    params: ParamsOf<M>,
    options?: CallOptions,
  ): Promise<ResultOf<M>>;
  /** Sets the notification / server-request listeners. */
  listen(listeners: ConnectionListeners): void;
  /**
   * Narrows the notifications and server requests this holder receives to
   * one thread (the connection it views carries several threads' turns: the
   * daemon's every client's, the turn host every turn of the relay).
   */
  follow(threadId: string): void;
  /**
   * Observes every notification the connection carries (any thread, followed
   * or not) until the returned function is called. Absent where the backend
   * cannot tell.
   */
  watch?(onNotification: (method: string, params: unknown) => void): () => void;
  /** Answers a server→client request. */
  respond(id: RpcId, result: unknown): void;
  /** Answers a server→client request with an error. */
  respondError(id: RpcId, code: number, message: string): void;
  /** Resolves with the error once the connection is gone. */
  readonly ended: Promise<RelayError>;
  /** The error that ended the connection, once it has ended (nothing more can be sent). */
  readonly failure: RelayError | undefined;
  /** Releases what this holder holds (the spawn backend reaps its turn host with the last). Idempotent. */
  close(): Promise<void>;
}

/** Options of one {@linkcode HeldConnection.call}. */
export interface CallOptions {
  /** At most this long (never more than the per-RPC timeout). */
  timeoutMs?: number;
  /** Cancels the RPC. */
  signal?: AbortSignal;
}

/**
 * A backend's RPC as it sends it (allowlist, budget, its connection) and the
 * raw result, typed by the method map: the result of each method is parsed
 * by its parser. Every backend's `call` is one of these, so a result is
 * parsed in one place whichever backend sent it.
 */
export function typedCall<O = never>(
  send: (method: Method, params: unknown, options?: O) => Promise<unknown>,
): <M extends Method>(method: M, params: ParamsOf<M>, options?: O) => Promise<ResultOf<M>> {
  return (method, params, options) =>
    send(method, params, options).then((result) => parseResult(method, result));
}

/** Counters for tests and benchmarks. */
export interface ConnectionStats {
  /** Connections open now (processes: helpers and the turn host; the daemon connection: 0 or 1). */
  alive: number;
  /** Most slots in use at once (helpers alive; operations in flight on the daemon). */
  peak: number;
  /** Connections opened in all (helpers spawned; proxies dialled). */
  spawned: number;
  /** Operations waiting for a slot. */
  waiting: number;
  /** Held connections open now (turn runtimes; each counts against the backend's `turns`). */
  held: number;
}

/** A request the app-server sent to the relay. */
export interface ServerRequest {
  /** The app-server's id for it (per connection, from 0). */
  id: RpcId;
  /** The method, e.g. `item/commandExecution/requestApproval`. */
  method: string;
  /** Its params, unvalidated. */
  params: unknown;
}

/** Listeners of a connection. */
export interface ConnectionListeners {
  /** Called for every notification. */
  onNotification?: (method: string, params: unknown) => void;
  /** Called for every server→client request; answer with `respond`/`respondError`. */
  onServerRequest?: (request: ServerRequest) => void;
  /** Called for every frame received (for watchdogs). */
  onActivity?: () => void;
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
      if (timeoutMs <= 0) return Promise.reject(budgetSpent(budgetMs, false));
      return conn.call(method, params, { signal, timeoutMs });
    },
    signal,
    remainingMs,
  };
}

/** `defaults` with each of `wanted` that is lower (bounds are only ever lowered). */
export function lowerOnly<L extends ConnectionLimits & { [K in keyof L]: number }>(
  defaults: Readonly<L>,
  wanted: Partial<L>,
): L {
  const out = { ...defaults } as L;
  for (const key of Object.keys(defaults) as (keyof L)[]) {
    const value = wanted[key];
    if (typeof value === "number" && value > 0 && value < defaults[key]) {
      out[key] = value as L[keyof L];
    }
  }
  return out;
}
