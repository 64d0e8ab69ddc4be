/**
 * A link opened lazily and shared: the spawn backend's warm helper and turn
 * host and the daemon connection each hold one. The first caller opens it;
 * callers arriving meanwhile share that opening (each may stop waiting, none
 * cancels it); an opening that ends after the backend stopped is closed, not
 * handed out; every link closes once, however many ask.
 * @module
 */

import { abortReason, RelayError } from "../core/errors.ts";
import { untilAborted } from "./_shared.ts";

/** What a {@linkcode SharedLink} does with its links. */
export interface LinkParts<T> {
  /**
   * Opens a link; `track` registers it as soon as it exists, before it is
   * ready, so that a kill or a shutdown reaches it.
   */
  open(track: (link: T) => void): Promise<T>;
  /** Whether an open link may still be used (it has not failed). */
  usable(link: T): boolean;
  /** Ends `link`, failing what is in flight on it with `why`: called once per link. */
  end(link: T, why: RelayError): Promise<void>;
  /** The backend's shutdown: once aborted, nothing opens. */
  stop: AbortSignal;
}

/**
 * One lazily opened, shared link at a time, and the ones still closing.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * let opened = 0;
 * const link = new SharedLink<{ id: number }>({
 *   open: () => Promise.resolve({ id: ++opened }),
 *   usable: () => true,
 *   end: () => Promise.resolve(),
 *   stop: new AbortController().signal,
 * });
 * const signal = new AbortController().signal;
 * const [a, b] = await Promise.all([link.get(signal), link.get(signal)]);
 * assert.equal(a, b); // callers share one opening
 * assert.equal(opened, 1);
 * ```
 */
export class SharedLink<T extends object> {
  readonly #parts: LinkParts<T>;
  readonly #links = new Set<T>();
  readonly #closing = new WeakMap<T, Promise<void>>();
  #current: T | undefined;
  #opening: Promise<T> | undefined;
  #stopped = false;

  /** A link opened and ended by `parts`. */
  constructor(parts: LinkParts<T>) {
    this.#parts = parts;
  }

  /** The open link, when there is one that may be used. */
  get current(): T | undefined {
    const current = this.#current;
    return current && !this.#closing.has(current) && this.#parts.usable(current)
      ? current
      : undefined;
  }

  /** The opening under way, if any. */
  get opening(): Promise<T> | undefined {
    return this.#opening;
  }

  /** Every link opened (or being opened) and not yet ended. */
  get links(): ReadonlySet<T> {
    return this.#links;
  }

  /** Whether the backend stopped: nothing opens any more. */
  get stopped(): boolean {
    return this.#stopped || this.#parts.stop.aborted;
  }

  /** How `link` closes, once {@linkcode SharedLink.close} was asked. */
  closing(link: T): Promise<void> | undefined {
    return this.#closing.get(link);
  }

  /**
   * The open link, or a new one (one opening at a time, shared). `signal`
   * ends this caller's wait (its reason, `written: false`), not the opening.
   */
  async get(signal: AbortSignal): Promise<T> {
    if (signal.aborted) throw abortReason(signal, false);
    const current = this.current;
    if (current) return current;
    this.#opening ??= this.#open().finally(() => (this.#opening = undefined));
    return await untilAborted(this.#opening, signal);
  }

  /** Throws (`cancelled`, `written: false`) once the backend stopped. */
  throwIfStopped(): void {
    if (this.stopped) throw this.#stopReason();
  }

  /** Ends `link` with `why`, once: later calls get the same closing. */
  close(link: T, why: RelayError): Promise<void> {
    let closing = this.#closing.get(link);
    if (closing === undefined) {
      if (this.#current === link) this.#current = undefined;
      closing = this.#parts.end(link, why).finally(() => this.#links.delete(link));
      this.#closing.set(link, closing);
    }
    return closing;
  }

  /** Stops opening, waits for an opening under way, and closes every link with `why`. */
  async shutdown(why: RelayError): Promise<void> {
    this.#stopped = true;
    await this.#opening?.catch(() => undefined);
    await Promise.all([...this.#links].map((link) => this.close(link, why)));
  }

  /** Stops opening and applies `kill` to every link; resolves with how many there were. */
  async kill(kill: (link: T) => Promise<void>): Promise<number> {
    this.#stopped = true;
    const links = [...this.#links];
    await Promise.all(links.map(kill));
    return links.length;
  }

  async #open(): Promise<T> {
    this.throwIfStopped();
    const link = await this.#parts.open((opened) => this.#links.add(opened));
    this.#links.add(link);
    if (this.stopped) {
      const why = this.#stopReason();
      await this.close(link, why);
      throw why;
    }
    // Closed while it opened (it died): handed to those waiting, never kept as the current one.
    if (!this.#closing.has(link)) this.#current = link;
    return link;
  }

  #stopReason(): RelayError {
    return this.#parts.stop.aborted
      ? abortReason(this.#parts.stop, false)
      : new RelayError("cancelled", "codex-relay is shutting down", { written: false });
  }
}
