/**
 * JSON-RPC over one {@linkcode FrameTransport} (a helper's stdio, or the
 * daemon's WebSocket): requests with timeouts and cancellation,
 * notifications, and server→client requests. Any frame that breaks the
 * protocol fails the whole connection: after it nothing the app-server says
 * can be trusted.
 * @module
 */

import { abortReason, type ReasonCode, RelayError } from "../core/errors.ts";
import type { ConnectionListeners } from "./connection.ts";
import type { RpcId } from "../codex/types.ts";
import type { Clock } from "../core/clock.ts";
import type { FrameTransport } from "./frame_transport.ts";
import { mapRpcError } from "./rpc_errors.ts";
import { classifyCut, CUT_NOTIFICATION, type CutFrame } from "./cut_frame.ts";

/** Options of one request. */
export interface RequestOptions {
  /** Fails the request with `timeout` after this long. */
  timeoutMs: number;
  /** Fails the request with `cancelled` when aborted. */
  signal?: AbortSignal;
}

/** Options of an {@linkcode RpcConnection}. */
export interface RpcConnectionOptions {
  /**
   * The reason of the failures this connection detects itself (a frame that
   * is not JSON, an answer to an id never sent); default `protocol_error`.
   */
  lostReason?: ReasonCode;
  /**
   * Whether a server request that arrives with no `onServerRequest` listener
   * is answered `-32601` (default true: a private helper only asks about its
   * own turns). A shared connection must leave such requests to whoever they are for.
   */
  answerUnhandled?: boolean;
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: RelayError) => void;
}

/** A JSON-RPC connection to one app-server. */
export class RpcConnection {
  readonly #transport: FrameTransport;
  readonly #clock: Clock;
  readonly #lost: ReasonCode;
  readonly #answerUnhandled: boolean;
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

  constructor(transport: FrameTransport, clock: Clock, options: RpcConnectionOptions = {}) {
    this.#transport = transport;
    this.#clock = clock;
    this.#lost = options.lostReason ?? "protocol_error";
    this.#answerUnhandled = options.answerUnhandled ?? true;
    this.ended = new Promise((resolve) => (this.#failed = resolve));
    this.#loop = this.#read();
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
    const frame = JSON.stringify({ id, method, params });
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
      this.#transport.write(frame).catch((error) =>
        this.#fail(
          error instanceof RelayError
            ? error
            : new RelayError(this.#lost, "The app-server stopped reading its input", {
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
    this.#transport.write(JSON.stringify(body)).catch(() => {});
  }

  /** Answers a server→client request with a result. */
  respond(id: RpcId, result: unknown): void {
    if (this.#failure) return;
    this.#transport.write(JSON.stringify({ id, result })).catch(() => {});
  }

  /** Answers a server→client request with a JSON-RPC error. */
  respondError(id: RpcId, code: number, message: string): void {
    if (this.#failure) return;
    const frame = JSON.stringify({ id, error: { code, message } });
    this.#transport.write(frame).catch(() => {});
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

  async #read(): Promise<void> {
    try {
      for await (const line of this.#transport.frames()) {
        if (this.#failure) continue;
        this.#listeners.onActivity?.();
        if (typeof line === "string") this.#dispatch(line);
        else this.#dispatchCut(line);
      }
      this.#fail(await this.#transport.closed());
    } catch (error) {
      this.#fail(
        error instanceof RelayError
          ? error
          : new RelayError(this.#lost, "Reading the app-server failed", { cause: error }),
      );
    }
  }

  /**
   * A frame over the bound, skipped: a notification reaches the listeners as
   * {@linkcode CUT_NOTIFICATION} (routed by its thread), an answer fails its
   * request `output_limit`; the connection goes on. Anything else (a server
   * request, a frame that cannot be told) ends the connection `output_limit`.
   */
  #dispatchCut(frame: CutFrame): void {
    const cut = classifyCut(frame);
    const limit = new RelayError(
      "output_limit",
      `The app-server wrote a frame of ${frame.bytes} bytes, over the bound`,
      { written: true },
    );
    if (cut.kind === "notification") {
      this.#listeners.onNotification?.(CUT_NOTIFICATION, cut.notice);
      return;
    }
    const pending = cut.kind === "response" ? this.#pending.get(cut.id) : undefined;
    if (pending) return pending.reject(limit);
    if (cut.kind === "response" && this.#abandoned.delete(cut.id)) return;
    this.#fail(limit);
  }

  #dispatch(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#fail(new RelayError(this.#lost, "The app-server wrote a frame that is not JSON"));
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.#fail(
        new RelayError(this.#lost, "The app-server wrote a frame that is not an object"),
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
        if (!this.#listeners.onServerRequest && this.#answerUnhandled) {
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
        new RelayError(this.#lost, "The app-server answered a request it was not sent"),
      );
      return;
    }
    if ("error" in m && m.error !== undefined && m.error !== null) {
      pending.reject(mapRpcError(pending.method, m.error));
    } else if ("result" in m) {
      pending.resolve(m.result);
    } else {
      this.#fail(
        new RelayError(this.#lost, "The app-server wrote a response without a result"),
      );
    }
  }
}
