/**
 * What every backend's `operation()` and `hold()` run in: the budget (from
 * the caller's wish and the bounds), one signal (the caller's, the budget's
 * and the backend's shutdown), and the allowlist check before anything is
 * sent. The backends differ in what they open, never in these.
 * @module
 */

import { abortReason, RelayError } from "../core/errors.ts";
import type { Clock } from "../core/clock.ts";
import type { Logger } from "../core/log.ts";
import { Budget } from "./budget.ts";
import { anySignal, notWritten } from "./_shared.ts";
import {
  type ConnectionLimits,
  type OperationOptions,
  type Session,
  typedCall,
} from "./connection.ts";
import type { Method } from "../codex/methods.ts";
import type { RpcConnection } from "./rpc_connection.ts";
import type { Slots } from "./slots.ts";

/** An operation's budget: the default `operationMs`, or what it asks for up to `maxOperationMs`. */
export function operationBudgetMs(limits: Readonly<ConnectionLimits>, askedMs?: number): number {
  return askedMs === undefined ? limits.operationMs : Math.min(askedMs, limits.maxOperationMs);
}

/** The budget of opening a held connection: what is asked, at most one operation's. */
export function holdBudgetMs(limits: Readonly<ConnectionLimits>, askedMs?: number): number {
  return Math.min(askedMs ?? limits.operationMs, limits.operationMs);
}

/** One operation's (or one opening's) budget and the signal its work runs under. */
export class OperationFrame {
  readonly #budget: Budget;
  /** Aborted by the caller, by the spent budget (its error) or by the backend's shutdown. */
  readonly signal: AbortSignal;

  /**
   * Starts a budget of `budgetMs` on `clock` now, under the caller's `signal`
   * and the backend's `shutdown`; `spent` is the error once the budget is
   * spent (default: the operation's timeout).
   */
  constructor(
    budgetMs: number,
    clock: Clock,
    signals: { caller?: AbortSignal; shutdown: AbortSignal },
    spent?: RelayError,
  ) {
    this.#budget = new Budget(budgetMs, clock, spent);
    this.signal = anySignal([signals.caller, this.#budget.signal, signals.shutdown]);
  }

  /** Whether the budget itself ran out (not the caller, not a shutdown). */
  get spent(): boolean {
    return this.#budget.signal.aborted;
  }

  /** Milliseconds left of the budget. */
  remainingMs(): number {
    return this.#budget.remainingMs();
  }

  /** Stops the budget's timer (the operation or the opening is over). */
  end(): void {
    this.#budget.cancel();
  }
}

/** Refuses `method` (`not_allowed`, nothing written) unless `allow` has it. */
export function checkAllowed(allow: ReadonlySet<Method>, method: Method, log: Logger): void {
  if (!allow.has(method)) {
    log.warn("refused", { method });
    throw new RelayError("not_allowed", `${method} is not allowed at this capability level`);
  }
}

/** One connection operations write to (a warm helper's, the daemon's). */
export interface OperationLink {
  /** Its JSON-RPC connection. */
  readonly rpc: RpcConnection;
  /** The process behind it, for logs. */
  readonly pid: number | undefined;
}

/**
 * What a backend gives {@linkcode runOperation}: where its operations write,
 * and what it does around each. Everything else (budget, allowlist, slot,
 * how many links one operation may use, reasons) is the frame's.
 */
export interface FrameBackend<L extends OperationLink> {
  /** Methods an operation may send. */
  allow: ReadonlySet<Method>;
  /** The bounds in force. */
  limits: Readonly<ConnectionLimits>;
  /** Time source of budgets. */
  clock: Clock;
  /** Logger (stderr). */
  log: Logger;
  /** The backend's shutdown. */
  shutdown: AbortSignal;
  /** Operations in flight at once, and the queue behind them. */
  slots: Slots;
  /** What the app-server is called in messages ("the app-server daemon"). */
  name: string;
  /** A link that may be written to (open, or opened now); never one known or found dead. */
  usable(signal: AbortSignal, remainingMs: () => number): Promise<L>;
  /** This operation starts using `link`; returns its release (idempotent). */
  use(link: L): () => void;
  /**
   * An RPC on `link` waited its whole per-RPC timeout unanswered: the backend
   * may replace the link (the operation answers once this resolves).
   */
  stalled?(link: L, error: RelayError): Promise<void>;
  /** {@linkcode Session.watch}, where the backend can wake a wait at once. */
  watch?(threadId: string, onNotification: (method: string, params: unknown) => void): () => void;
}

/** No slot became free in time (the one `busy` of operations). */
export function busy(what: string): RelayError {
  return new RelayError("busy", `No ${what} became free within the operation budget`);
}

/** The operation lost its connection more often than the bound (the one reason: `connection_lost`). */
export function tooManyLost(name: string, times: number): RelayError {
  return new RelayError(
    "connection_lost",
    `The operation lost its connection to ${name} ${times} times`,
    { written: false },
  );
}

/**
 * Runs `fn` as one operation of `backend`: one budget, one slot (taken at the
 * first RPC), the allowlist checked before anything is opened or written,
 * each RPC at most one per-RPC timeout, and at most `connectionsPerOperation`
 * links in turn when one is lost. Everything it took is given back before
 * this resolves.
 */
export async function runOperation<T, L extends OperationLink>(
  backend: FrameBackend<L>,
  fn: (session: Session) => Promise<T>,
  options: OperationOptions = {},
): Promise<T> {
  const { limits, log } = backend;
  const frame = new OperationFrame(
    operationBudgetMs(limits, options.budgetMs),
    backend.clock,
    { caller: options.signal, shutdown: backend.shutdown },
  );
  const signal = frame.signal;
  const remainingMs = () => frame.remainingMs();
  let release: (() => void) | undefined;
  let link: L | undefined;
  let unuse: (() => void) | undefined;
  let used = 0;
  const unwatch = new Set<() => void>();
  const watch = backend.watch;
  const session: Session = {
    signal,
    remainingMs,
    call: typedCall(async (method, params) => {
      checkAllowed(backend.allow, method, log);
      if (signal.aborted) throw abortReason(signal, false);
      release ??= await takeSlot(backend, signal);
      if (!link || link.rpc.failure) {
        if (used >= limits.connectionsPerOperation) throw tooManyLost(backend.name, used);
        used++;
        link = await backend.usable(signal, remainingMs);
        unuse?.();
        unuse = backend.use(link);
      }
      const timeoutMs = Math.min(limits.rpcTimeoutMs, remainingMs());
      log.debug("rpc", { method, pid: link.pid, op: options.label });
      try {
        return await link.rpc.request(method, params, { timeoutMs, signal });
      } catch (error) {
        const whole = timeoutMs >= limits.rpcTimeoutMs && !frame.spent;
        if (backend.stalled && whole && error instanceof RelayError && error.reason === "timeout") {
          await backend.stalled(link, error);
        }
        throw error;
      }
    }),
    ...(watch && {
      watch: (threadId: string, onNotification: (method: string, params: unknown) => void) => {
        const unroute = watch(threadId, onNotification);
        const stop = () => {
          unroute();
          unwatch.delete(stop);
        };
        unwatch.add(stop);
        return stop;
      },
    }),
  };
  try {
    return await fn(session);
  } finally {
    frame.end();
    for (const stop of [...unwatch]) stop();
    unuse?.();
    release?.();
  }
}

async function takeSlot(
  backend: FrameBackend<OperationLink>,
  signal: AbortSignal,
): Promise<() => void> {
  try {
    return await backend.slots.acquire(signal);
  } catch (error) {
    const late = error instanceof RelayError && error.reason === "timeout";
    throw notWritten(late ? busy(`operation slot on ${backend.name}`) : error);
  }
}
