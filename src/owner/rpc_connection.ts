/**
 * JSON-RPC over one helper's stdio: requests with timeouts and cancellation,
 * notifications, and server→client requests. Any frame that breaks the
 * protocol fails the whole connection: after it nothing the helper says can
 * be trusted.
 * @module
 */

import { RelayError } from "../errors.ts";
import type { RpcId } from "../codex/types.ts";
import type { Clock } from "./clock.ts";
import type { HelperProcess } from "./helper_process.ts";
import { readLines } from "./line_reader.ts";
import { mapRpcError } from "./rpc_errors.ts";

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

/** Options of one request. */
export interface RequestOptions {
  /** Fails the request with `timeout` after this long. */
  timeoutMs: number;
  /** Fails the request with `cancelled` when aborted. */
  signal?: AbortSignal;
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: RelayError) => void;
}

const encoder = new TextEncoder();

/** A JSON-RPC connection to one helper. */
export class RpcConnection {
  readonly #helper: HelperProcess;
  readonly #clock: Clock;
  readonly #pending = new Map<RpcId, Pending>();
  /** Ids given up on (timeout, cancel): their late answers are ignored. */
  readonly #abandoned = new Set<RpcId>();
  #listeners: ConnectionListeners = {};
  #nextId = 1;
  #failure: RelayError | undefined;
  #failed: (error: RelayError) => void = () => {};
  /** Resolves with the error that ended the connection (exit, bad frame, reap). */
  readonly ended: Promise<RelayError>;
  readonly #loop: Promise<void>;

  constructor(helper: HelperProcess, maxFrameBytes: number, clock: Clock) {
    this.#helper = helper;
    this.#clock = clock;
    this.ended = new Promise((resolve) => (this.#failed = resolve));
    this.#loop = this.#read(maxFrameBytes);
    helper.readingStdout(this.#loop);
  }

  /** Replaces the listeners. */
  listen(listeners: ConnectionListeners): void {
    this.#listeners = listeners;
  }

  /** The error that ended the connection, if it has ended. */
  get failure(): RelayError | undefined {
    return this.#failure;
  }

  /** Resolves once the read loop has finished. */
  get drained(): Promise<void> {
    return this.#loop;
  }

  /**
   * Sends a request and resolves with its result. Rejects with a
   * {@linkcode RelayError}: `timeout`, `cancelled`, a mapped app-server error,
   * or the failure that ended the connection. `written` tells whether the
   * frame may have reached the app-server.
   */
  request(method: string, params: unknown, options: RequestOptions): Promise<unknown> {
    if (this.#failure) return Promise.reject(this.#notWritten(this.#failure));
    if (options.signal?.aborted) return Promise.reject(abortReason(options.signal, false));
    const id = this.#nextId++;
    const frame = encoder.encode(JSON.stringify({ id, method, params }) + "\n");
    return new Promise<unknown>((resolve, reject) => {
      const settle = (fn: () => void) => {
        if (!this.#pending.delete(id)) return;
        timer.cancel();
        options.signal?.removeEventListener("abort", onAbort);
        fn();
      };
      const giveUp = (error: RelayError) => {
        this.#abandoned.add(id);
        settle(() => reject(error));
      };
      const onAbort = () => giveUp(abortReason(options.signal!, true));
      const timer = this.#clock.after(options.timeoutMs, () =>
        giveUp(
          new RelayError("timeout", `The app-server did not answer ${method} in time`, {
            written: true,
          }),
        ));
      this.#pending.set(id, {
        method,
        resolve: (value) => settle(() => resolve(value)),
        reject: (error) => settle(() => reject(error)),
      });
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.#helper.write(frame).catch((error) =>
        this.#fail(
          new RelayError("protocol_error", "The app-server stopped reading its input", {
            written: true,
            cause: error,
          }),
        )
      );
    });
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): void {
    if (this.#failure) return;
    const body = params === undefined ? { method } : { method, params };
    this.#helper.write(encoder.encode(JSON.stringify(body) + "\n")).catch(() => {});
  }

  /** Answers a server→client request with a result. */
  respond(id: RpcId, result: unknown): void {
    if (this.#failure) return;
    this.#helper.write(encoder.encode(JSON.stringify({ id, result }) + "\n")).catch(() => {});
  }

  /** Answers a server→client request with a JSON-RPC error. */
  respondError(id: RpcId, code: number, message: string): void {
    if (this.#failure) return;
    const frame = JSON.stringify({ id, error: { code, message } }) + "\n";
    this.#helper.write(encoder.encode(frame)).catch(() => {});
  }

  /** Ends the connection with `error` (e.g. on reap); pending requests reject with it. */
  close(error: RelayError): void {
    this.#fail(error);
  }

  #notWritten(error: RelayError): RelayError {
    return new RelayError(error.reason, error.message, { written: false, cause: error });
  }

  #fail(error: RelayError): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#failed(error);
    for (const pending of [...this.#pending.values()]) {
      pending.reject(new RelayError(error.reason, error.message, { written: true, cause: error }));
    }
  }

  async #read(maxFrameBytes: number): Promise<void> {
    try {
      const lines = readLines(this.#helper.stdout, maxFrameBytes, this.#helper.pipesCut);
      for await (const line of lines) {
        if (this.#failure) continue;
        this.#listeners.onActivity?.();
        this.#dispatch(line);
      }
      const status = await this.#helper.status;
      const how = status.signal ? `signal ${status.signal}` : `code ${status.code}`;
      this.#fail(new RelayError("protocol_error", `The app-server exited (${how})`));
    } catch (error) {
      this.#fail(
        error instanceof RelayError
          ? error
          : new RelayError("protocol_error", "Reading the app-server failed", { cause: error }),
      );
    }
  }

  #dispatch(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#fail(new RelayError("protocol_error", "The app-server wrote a line that is not JSON"));
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.#fail(
        new RelayError("protocol_error", "The app-server wrote a frame that is not an object"),
      );
      return;
    }
    const m = message as Record<string, unknown>;
    const hasId = typeof m.id === "number" || typeof m.id === "string";
    if (typeof m.method === "string") {
      if (hasId) {
        this.#listeners.onServerRequest?.({
          id: m.id as RpcId,
          method: m.method,
          params: m.params,
        });
        if (!this.#listeners.onServerRequest) {
          this.respondError(m.id as RpcId, -32601, `codex-relay does not handle ${m.method}`);
        }
      } else {
        this.#listeners.onNotification?.(m.method, m.params);
      }
      return;
    }
    const pending = hasId ? this.#pending.get(m.id as RpcId) : undefined;
    if (!pending && hasId && this.#abandoned.delete(m.id as RpcId)) return;
    if (!pending) {
      this.#fail(
        new RelayError("protocol_error", "The app-server answered a request it was not sent"),
      );
      return;
    }
    if ("error" in m && m.error !== undefined && m.error !== null) {
      pending.reject(mapRpcError(pending.method, m.error));
    } else if ("result" in m) {
      pending.resolve(m.result);
    } else {
      this.#fail(
        new RelayError("protocol_error", "The app-server wrote a response without a result"),
      );
    }
  }
}

/** The error for an aborted signal: its reason when that is a RelayError, else `cancelled`. */
export function abortReason(signal: AbortSignal, written: boolean): RelayError {
  const why = signal.reason;
  return why instanceof RelayError
    ? new RelayError(why.reason, why.message, { written })
    : new RelayError("cancelled", "The operation was cancelled", { written });
}
