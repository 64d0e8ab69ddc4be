/**
 * The MCP stdio transport of `serve`: newline-delimited JSON-RPC on stdin and
 * stdout, with the relay's own bound on one message. A message longer than
 * {@linkcode MAX_MESSAGE_BYTES} is skipped without being buffered, scanned as
 * it passes for its top-level id ({@linkcode LineScan}), and refused on its
 * own: a JSON-RPC error by that id, or with `id: null` when none can be told
 * (a notification or a response gets none; a log line in any case); a line
 * that is not JSON, a batch and a request with `id: null` get the error the
 * JSON-RPC 2.0 spec gives. The server keeps serving.
 *
 * Backpressure: stdin is read only while the requests read and not yet
 * answered (their answers written included) and the bytes queued for stdout
 * are under the bounds of a {@linkcode WireBudget}; past them reading stops
 * until the client has taken enough, so memory stays bounded.
 *
 * Stdin EOF ends the input, not the connection: it fires `oninputend`, and
 * answers can still be written until {@linkcode LineStdioTransport.close}
 * (the server answers what it read first). (The SDK's own transport closes
 * the whole connection on a line of 10 MiB or at EOF, dropping answers.)
 * @module
 */

import { concatBytes } from "../core/bytes.ts";
import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResponse,
  type JSONRPCMessage,
  type Transport,
} from "@modelcontextprotocol/server";
import type { Logger } from "../core/log.ts";
import { WireBudget } from "./wire_budget.ts";
import type { RpcId } from "../codex/types.ts";
import { LineScan } from "./line_scan.ts";

/**
 * The longest MCP message accepted from the client, in bytes (one line, its
 * newline excluded). The largest legitimate one is a tool call with 16 KiB of
 * text, or an `inputResponses` retry carrying a sealed request state: a few
 * tens of KiB.
 */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** JSON-RPC 2.0 error codes. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
/** The JSON-RPC server-error code of a request the relay shut down before answering. */
export const SHUT_DOWN = -32000;

const encoder = new TextEncoder();
const NEWLINE = 0x0a;

/** Options of a {@linkcode LineStdioTransport}. */
export interface StdioOptions {
  /** Where messages come from (the CLI's: stdin). */
  input: ReadableStream<Uint8Array>;
  /** Where messages go (the CLI's: stdout). */
  output: WritableStream<Uint8Array>;
  /** The bound on one message (default {@linkcode MAX_MESSAGE_BYTES}; lower only). */
  maxMessageBytes?: number;
  /** Where refusals are logged. */
  log: Logger;
  /** The bounds on what is held for the client (default: {@linkcode WireBudget}'s). */
  budget?: WireBudget;
}

/** A {@linkcode Transport} over stdio that refuses bad or oversized messages one by one. */
export class LineStdioTransport implements Transport {
  /** `subscriptions/listen` requests read (by JSON id): streams only a shutdown answers. */
  readonly #streams = new Set<string>();
  /** Called once {@linkcode close} was called. */
  onclose?: () => void;
  /** Called once stdin has ended (EOF or a read failure); answers can still be sent. */
  oninputend?: () => void;
  /** Called for out-of-band problems (a failed write). */
  onerror?: (error: Error) => void;
  /** Called for every well-formed JSON-RPC message. */
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #input: ReadableStream<Uint8Array>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #max: number;
  readonly #log: Logger;
  readonly #budget: WireBudget;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #closed = false;
  #writing: Promise<void> = Promise.resolve();

  constructor(options: StdioOptions) {
    this.#input = options.input;
    this.#writer = options.output.getWriter();
    this.#max = Math.min(options.maxMessageBytes ?? MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES);
    this.#log = options.log;
    this.#budget = options.budget ?? new WireBudget();
  }

  /** What is held for the client now. */
  get budget(): WireBudget {
    return this.#budget;
  }

  /** Starts reading stdin. */
  start(): Promise<void> {
    if (this.#reader) return Promise.reject(new Error("LineStdioTransport already started"));
    this.#reader = this.#input.getReader();
    void this.#read(this.#reader).finally(() => {
      if (!this.#closed) this.oninputend?.();
    });
    return Promise.resolve();
  }

  /**
   * Writes one message as one line on stdout. An answer to a request that is
   * not owed one (already answered, or cancelled by the client) is dropped.
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("LineStdioTransport is closed"));
    const answer = isJSONRPCResponse(message) && "id" in message;
    if (answer && !this.#budget.answer((message as { id: RpcId }).id)) {
      this.#log.debug("answer dropped", { why: "not owed" });
      return Promise.resolve();
    }
    return this.#write(JSON.stringify(message), answer);
  }

  /**
   * Answers every request still owed an answer with an error saying the
   * relay shut down first (the last step before {@linkcode close}). Resolves
   * with how many. `streamsOnly`: only the open `subscriptions/listen`
   * streams, which no cancel ends (answered first at a shutdown).
   */
  answerOwed(streamsOnly = false): number {
    const owed = this.#budget.owed().filter((id) =>
      !streamsOnly || this.#streams.has(JSON.stringify(id))
    );
    for (const id of owed) {
      if (!this.#budget.answer(id)) continue;
      const error = {
        code: SHUT_DOWN,
        message: "codex-relay shut down before answering this request",
      };
      void this.#write(JSON.stringify({ jsonrpc: "2.0", id, error }), true).catch(() => {});
    }
    return owed.length;
  }

  /** Resolves once every request read is answered and every queued line written. */
  idle(): Promise<void> {
    return this.#budget.idle();
  }

  /**
   * Resolves once every queued line is written, then gives the output back
   * (its writer's lock released; the stream is left open for its owner).
   */
  async releaseOutput(): Promise<void> {
    await this.#writing;
    this.#writer.releaseLock();
  }

  /** Stops reading stdin and fires `onclose` (once). */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#reader?.cancel().catch(() => {});
    this.onclose?.();
    return Promise.resolve();
  }

  #write(line: string, answer: boolean): Promise<void> {
    const bytes = encoder.encode(line + "\n");
    this.#budget.queued(bytes.length);
    const done = this.#writing.then(() => this.#writer.write(bytes)).finally(() =>
      this.#budget.written(bytes.length, answer)
    );
    this.#writing = done.catch((error) => {
      // Stryker disable next-line OptionalChaining: a stdout that failed once is errored for good: every later write fails either way
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    });
    return done;
  }

  /** Waits, when a bound is reached, until the client has taken enough (backpressure). */
  async #roomToRead(): Promise<void> {
    const full = this.#budget.full;
    // Stryker disable next-line ConditionalExpression: room() resolves at once when no bound is reached
    if (full === undefined) return;
    // Stryker disable next-line ObjectLiteral: only logged
    const held = { unanswered: this.#budget.unanswered, bytes: this.#budget.unwrittenBytes };
    this.#log.debug("stdin paused", { bound: full, ...held });
    await this.#budget.room();
    this.#log.debug("stdin resumed", { unanswered: this.#budget.unanswered });
  }

  async #read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    let parts: Uint8Array[] = [];
    let size = 0;
    /** The line being skipped (over the bound): its scan and its length. */
    let skipping: { scan: LineScan; bytes: number } | undefined;
    try {
      while (!this.#closed) {
        // Stryker disable next-line ConditionalExpression: #roomToRead() returns at once when no bound is reached
        if (this.#budget.full !== undefined) await this.#roomToRead();
        // Stryker disable next-line ConditionalExpression: close() cancels the reader: the next read is done
        if (this.#closed) return;
        const { value, done } = await reader.read();
        if (done) return;
        let start = 0;
        // Stryker disable next-line EqualityOperator: at a chunk's end the piece is empty: nothing is added
        while (start < value.length) {
          const nl = value.indexOf(NEWLINE, start);
          const end = nl === -1 ? value.length : nl;
          const piece = value.subarray(start, end);
          if (!skipping && size + piece.length > this.#max) {
            skipping = { scan: new LineScan(), bytes: size };
            for (const part of parts) skipping.scan.push(part);
            parts = [];
            size = 0;
          }
          if (skipping) {
            skipping.bytes += piece.length;
            skipping.scan.push(piece);
          } else if (nl === -1) {
            // Stryker disable next-line MethodExpression: stdin's chunks are never written to again
            parts.push(piece.slice());
            size += piece.length;
          }
          if (nl === -1) break;
          start = nl + 1;
          // Stryker disable next-line ConditionalExpression: #roomToRead() returns at once when no bound is reached
          if (this.#budget.full !== undefined) await this.#roomToRead();
          if (this.#closed) return;
          if (skipping) {
            this.#oversized(skipping.scan, skipping.bytes);
            skipping = undefined;
          } else {
            // Stryker disable next-line ConditionalExpression: concatenating one piece gives the same bytes
            const line = parts.length === 0
              ? piece
              : concatBytes([...parts, piece], size + piece.length);
            parts = [];
            size = 0;
            this.#line(line);
          }
        }
      }
    } catch (error) {
      // Stryker disable BlockStatement: the finally block below: the lock of a stream that ended or was cancelled is never taken again
      // Stryker disable next-line ConditionalExpression: only a log line
      if (!this.#closed) {
        this.#log.warn("stdin failed", { error: error instanceof Error ? error.message : "" });
      }
    } finally {
      // Stryker restore BlockStatement
      reader.releaseLock();
    }
  }

  /** One complete line (at most the bound): a message, or the error the spec gives. */
  #line(bytes: Uint8Array): void {
    // A trailing CR (CRLF lines) is whitespace to JSON.parse and trim().
    const text = new TextDecoder().decode(bytes);
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#log.warn("mcp message refused", { why: "not JSON", bytes: bytes.length });
      this.#error(null, PARSE_ERROR, "Parse error: the message is not JSON");
      return;
    }
    if (Array.isArray(value)) {
      this.#log.warn("mcp message refused", { why: "batch", bytes: bytes.length });
      this.#error(null, INVALID_REQUEST, "Invalid request: codex-relay does not support batches");
      return;
    }
    if (isJSONRPCRequest(value)) {
      this.#budget.read(value.id);
      if (value.method === "subscriptions/listen") this.#streams.add(JSON.stringify(value.id));
    } else if (isJSONRPCNotification(value) && value.method === "notifications/cancelled") {
      const cancelled = usableId((value.params as { requestId?: unknown } | undefined)?.requestId);
      // Stryker disable next-line ConditionalExpression: no request of id null is ever owed: it is refused before it is read
      if (cancelled !== null) this.#budget.cancel(cancelled);
    }
    if (isJSONRPCRequest(value) || isJSONRPCNotification(value) || isJSONRPCResponse(value)) {
      this.onmessage?.(value as JSONRPCMessage);
      return;
    }
    const m = typeof value === "object" && value !== null ? value as Record<string, unknown> : {};
    const isResponse = "result" in m || "error" in m;
    if (isResponse && !("method" in m)) {
      // A malformed response: nothing to answer (answering a response is not allowed).
      this.#log.warn("mcp message refused", { why: "malformed response", bytes: bytes.length });
      return;
    }
    const id = usableId(m.id);
    const why = "id" in m && m.id === null ? "id null" : "invalid request";
    this.#log.warn("mcp message refused", { why, bytes: bytes.length });
    this.#error(
      id,
      INVALID_REQUEST,
      why === "id null"
        ? "Invalid request: the id must be a string or a number, not null"
        : "Invalid request: not a JSON-RPC 2.0 request or notification",
    );
  }

  /**
   * A line over the bound, skipped: answered by its top-level id, or with
   * `id: null` when it has none that can be told (not a notification nor a
   * response: those get no answer).
   */
  #oversized(scan: LineScan, bytes: number): void {
    const verdict = scan.verdict();
    this.#log.warn("mcp message refused", {
      why: "too large",
      bytes,
      limitBytes: this.#max,
      answered: verdict.answer,
    });
    if (!verdict.answer) return;
    const id = verdict.id;
    this.#error(
      id,
      INVALID_REQUEST,
      `Invalid request: the message is ${bytes} bytes, over codex-relay's limit of ${this.#max} bytes`,
      { limitBytes: this.#max },
    );
  }

  #error(id: RpcId | null, code: number, message: string, data?: unknown): void {
    // Stryker disable next-line ConditionalExpression: reading stops at close: no refusal is made after it
    if (this.#closed) return;
    const error = { code, message, data }; // JSON.stringify drops data: undefined
    this.#budget.refused();
    void this.#write(JSON.stringify({ jsonrpc: "2.0", id, error }), true).catch(() => {});
  }
}

function usableId(id: unknown): RpcId | null {
  // Stryker disable next-line LogicalOperator,ConditionalExpression: only 1e999 (Infinity) tells them apart: JSON.stringify writes it as null, and cancelling it cancels nothing
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}
