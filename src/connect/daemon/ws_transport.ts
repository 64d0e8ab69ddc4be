/**
 * The daemon's WebSocket over a `codex app-server proxy` process's stdio, as
 * a {@linkcode FrameTransport}: the proxy relays bytes to the daemon's control
 * socket unchanged, so the relay writes the HTTP upgrade and masked frames to
 * its stdin and reads the daemon's frames from its stdout. The framing is
 * `websocket-driver`'s (one JSON-RPC message per text message).
 * @module
 */

import websocket from "websocket-driver";
import { Buffer } from "node:buffer";
import { RelayError } from "../../core/errors.ts";
import type { FrameTransport } from "../frame_transport.ts";
import type { HelperProcess } from "../process/helper_process.ts";
import type { CutFrame } from "../cut_frame.ts";
import { WsSkipper } from "./ws_skip.ts";

/** The part of websocket-driver's client driver this module uses. */
interface Driver {
  io: {
    write(chunk: Uint8Array): boolean;
    on(event: "data", fn: (chunk: Uint8Array) => void): void;
  };
  messages: { on(event: "data", fn: (message: string | Uint8Array) => void): void };
  on(event: "open", fn: () => void): void;
  on(event: "error", fn: (error: Error) => void): void;
  on(event: "close", fn: (event: { code: number; reason: string }) => void): void;
  start(): boolean;
  text(message: string): boolean;
  ping(message: string, callback: () => void): boolean;
  close(reason?: string, code?: number): boolean;
}

const TOO_LARGE = 1009;

/** WebSocket frames over a proxy process's stdin/stdout, under a message bound. */
export class WebSocketTransport implements FrameTransport {
  readonly #helper: HelperProcess;
  readonly #maxFrameBytes: number;
  readonly #driver: Driver;
  readonly #queue: (string | CutFrame)[] = [];
  readonly #skipper: WsSkipper;
  #wake: (() => void) | undefined;
  #open = false;
  /** Set once no more frames come: why (undefined: the proxy's stdout ended). */
  #end: { error?: RelayError } | undefined;
  #lastWrite: Promise<void> = Promise.resolve();
  #pings = 0;
  /** Pings waiting for their pong (resolved false when the channel ends). */
  readonly #pinging = new Set<(alive: boolean) => void>();
  readonly #opened = Promise.withResolvers<void>();
  readonly #pump: Promise<void>;

  /** Starts the handshake at once; {@linkcode opened} settles with its outcome. */
  constructor(helper: HelperProcess, maxFrameBytes: number) {
    this.#helper = helper;
    this.#maxFrameBytes = maxFrameBytes;
    this.#skipper = new WsSkipper(maxFrameBytes);
    this.#opened.promise.catch(() => {});
    const driver = websocket.client("ws://localhost/", { maxLength: maxFrameBytes }) as Driver;
    this.#driver = driver;
    driver.io.on("data", (chunk) => {
      this.#lastWrite = helper.write(chunk);
      this.#lastWrite.catch(() => {});
    });
    driver.on("open", () => {
      this.#open = true;
      this.#opened.resolve();
    });
    driver.messages.on("data", (message) => {
      if (this.#end) return;
      if (typeof message !== "string") {
        this.#finish(
          new RelayError("connection_lost", "The app-server daemon sent a binary frame", {
            written: true,
          }),
        );
        return;
      }
      this.#queue.push(message);
      this.#notify();
    });
    let failure: Error | undefined;
    driver.on("error", (error) => (failure ??= error));
    driver.on("close", (event) => {
      if (event.code === TOO_LARGE) {
        this.#finish(
          new RelayError(
            "output_limit",
            `The app-server wrote a frame longer than ${this.#maxFrameBytes} bytes`,
            { written: true },
          ),
        );
      } else if (failure) {
        this.#finish(
          new RelayError(
            "connection_lost",
            `The app-server daemon connection broke: ${failure.message.slice(0, 200)}`,
            { written: true, cause: failure },
          ),
        );
      } else {
        this.#finish(
          new RelayError(
            "connection_lost",
            `The app-server daemon closed the connection (code ${event.code ?? "none"})`,
            { written: true },
          ),
        );
      }
    });
    this.#pump = this.#readStdout();
    driver.start();
  }

  /** Resolves once the upgrade is done; rejects when the channel ends first. */
  get opened(): Promise<void> {
    return this.#opened.promise;
  }

  /** Resolves once the proxy's stdout is drained. */
  get drained(): Promise<void> {
    return this.#pump;
  }

  write(frame: string): Promise<void> {
    if (!this.#open || this.#end) {
      return Promise.reject(
        new RelayError("connection_lost", "The app-server daemon connection is closed", {
          written: true,
        }),
      );
    }
    this.#driver.text(frame); // Emits the frame's bytes synchronously (the io "data" handler).
    return this.#lastWrite.catch((error) => {
      throw new RelayError("connection_lost", "The app-server proxy stopped reading its input", {
        written: true,
        cause: error,
      });
    });
  }

  async *frames(): AsyncGenerator<string | CutFrame> {
    while (true) {
      const next = this.#queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.#end) {
        if (this.#end.error) throw this.#end.error;
        return;
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  async closed(): Promise<RelayError> {
    const status = await this.#helper.status;
    const how = status.signal ? `signal ${status.signal}` : `code ${status.code}`;
    return new RelayError(
      "connection_lost",
      `The connection to the app-server daemon was lost (codex app-server proxy exited with ${how})`,
      { written: true },
    );
  }

  /**
   * A liveness probe that writes no JSON-RPC: a WebSocket ping. Resolves true
   * at its pong, false once the channel has ended (a proxy whose daemon is
   * gone exits when it is written to). It has no deadline of its own.
   */
  ping(): Promise<boolean> {
    if (!this.#open || this.#end) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = (alive: boolean) => {
        if (this.#pinging.delete(done)) resolve(alive);
      };
      this.#pinging.add(done);
      this.#driver.ping(`relay-${++this.#pings}`, () => done(true));
      this.#lastWrite.catch(() => done(false));
    });
  }

  /** The channel's own error once it ended with one (set before pending pings answer false). */
  get failure(): RelayError | undefined {
    return this.#end?.error;
  }

  /** Sends a WebSocket close frame (best effort), before the proxy's stdin is closed. */
  close(): void {
    if (this.#open && !this.#end) this.#driver.close();
  }

  #finish(error?: RelayError): void {
    if (this.#end) return;
    this.#end = { error };
    this.#opened.reject(
      error ?? new RelayError("connection_lost", "The app-server proxy closed its output"),
    );
    for (const done of [...this.#pinging]) done(false);
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async #readStdout(): Promise<void> {
    try {
      for await (const chunk of this.#helper.stdout) {
        if (this.#end) continue; // Drain, so the proxy never blocks on a full pipe.
        // A whole message over the bound never reaches the driver: it comes as a cut frame.
        for (const part of this.#skipper.push(chunk)) {
          if (part instanceof Uint8Array) {
            this.#driver.io.write(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
          } else if (!this.#end) {
            this.#queue.push(part);
            this.#notify();
          }
        }
      }
    } catch {
      // The pipe broke: the proxy is gone.
    }
    this.#finish();
  }
}
