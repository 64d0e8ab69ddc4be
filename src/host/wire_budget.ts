/**
 * What the MCP side holds for the client: requests read and not yet answered
 * (their answers written included), and bytes queued for stdout. The stdio
 * transport reads stdin only while both are under their bounds, so memory
 * stays bounded whatever the client sends or leaves unread. Pure bookkeeping,
 * no I/O.
 * @module
 */

import type { RpcId } from "../codex/types.ts";

/**
 * Requests read whose answers are not yet written, past which stdin is no
 * longer read. The Codex side takes 16 operations at once and queues 64
 * (daemon mode; spawn mode 4 + 64): every call past that is answered `busy`
 * at once, so a legitimate client never has this many waiting.
 */
export const MAX_UNANSWERED = 256;

/** Bytes queued for stdout (answers and notifications) past which stdin is no longer read. */
export const MAX_UNWRITTEN_BYTES = 8 * 1024 * 1024;

/** Which bound stopped reading. */
export type Full = "requests" | "bytes";

function key(id: RpcId): string {
  return `${typeof id}:${id}`;
}

/** The bookkeeping of one stdio connection. */
export class WireBudget {
  readonly maxRequests: number;
  readonly maxBytes: number;
  /** Requests read and not yet answered, by id (a client may reuse an id). */
  readonly #owed = new Map<string, { id: RpcId; count: number }>();
  /** Requests read whose answer is not yet written (owed + being written). */
  #unanswered = 0;
  #bytes = 0;
  #waiters: (() => void)[] = [];

  constructor(maxRequests = MAX_UNANSWERED, maxBytes = MAX_UNWRITTEN_BYTES) {
    this.maxRequests = Math.max(1, maxRequests);
    this.maxBytes = Math.max(1, maxBytes);
  }

  /** Requests read whose answer is not yet written. */
  get unanswered(): number {
    return this.#unanswered;
  }

  /** Bytes queued for stdout and not yet written. */
  get unwrittenBytes(): number {
    return this.#bytes;
  }

  /** Which bound is reached, if any (reading stops while one is). */
  get full(): Full | undefined {
    if (this.#unanswered >= this.maxRequests) return "requests";
    if (this.#bytes >= this.maxBytes) return "bytes";
    return undefined;
  }

  /** A request was read and passed on: its answer is owed. */
  read(id: RpcId): void {
    const k = key(id);
    const entry = this.#owed.get(k);
    if (entry) entry.count++;
    else this.#owed.set(k, { id, count: 1 });
    this.#unanswered++;
  }

  /**
   * An answer to `id` is about to be written. True when one was owed (it now
   * counts until {@linkcode written}); false when none was (already answered,
   * or cancelled by the client): such an answer is not written.
   */
  answer(id: RpcId): boolean {
    return this.#take(key(id));
  }

  /**
   * The client cancelled request `id`: no answer is owed any more (the server
   * sends none). False when it was not owed.
   */
  cancel(id: RpcId): boolean {
    if (!this.#take(key(id))) return false;
    this.#settle(0, true);
    return true;
  }

  /** An answer the transport wrote on its own (a refused line): it counts until written. */
  refused(): void {
    this.#unanswered++;
  }

  /** `bytes` were queued for stdout. */
  queued(bytes: number): void {
    this.#bytes += bytes;
  }

  /** A queued message of `bytes` was written (or failed); `answer` when it answered a request. */
  written(bytes: number, answer: boolean): void {
    this.#settle(bytes, answer);
  }

  /** The ids still owed an answer, once each per request (for answering them at shutdown). */
  owed(): RpcId[] {
    return [...this.#owed.values()].flatMap((e) => Array(e.count).fill(e.id));
  }

  /**
   * Resolves once reading may go on: both counts at or below three quarters
   * of their bounds (so a full connection does not wake for every answer).
   */
  room(): Promise<void> {
    if (this.full === undefined) return Promise.resolve();
    return this.#until(() =>
      this.#unanswered <= Math.floor(this.maxRequests * 0.75) &&
      this.#bytes <= Math.floor(this.maxBytes * 0.75)
    );
  }

  /** Resolves once every request read has its answer written and nothing is queued. */
  idle(): Promise<void> {
    return this.#until(() => this.#unanswered === 0 && this.#bytes === 0);
  }

  #take(k: string): boolean {
    const entry = this.#owed.get(k);
    if (!entry) return false;
    if (--entry.count === 0) this.#owed.delete(k);
    return true;
  }

  #settle(bytes: number, answer: boolean): void {
    this.#bytes = Math.max(0, this.#bytes - bytes);
    if (answer) this.#unanswered = Math.max(0, this.#unanswered - 1);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #until(ok: () => boolean): Promise<void> {
    if (ok()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const check = () => (ok() ? resolve() : this.#waiters.push(check));
      this.#waiters.push(check);
    });
  }
}
