/**
 * An in-memory app-server daemon for unit tests of the daemon backend: each
 * dial is one connection that answers `initialize` at once and holds every
 * other request until the test releases it. A connection can be lost (its
 * frames end), answer pings or not, and records every frame written to it.
 * @module
 */

import { RelayError } from "../src/core/errors.ts";
import type { FrameTransport } from "../src/connect/frame_transport.ts";
import type { Dialed } from "../src/connect/daemon/proxy_dial.ts";

/** One dialled connection of a {@linkcode FakeDaemon}. */
export interface FakeLink {
  /** Methods written to it, in order (`initialize` and `initialized` included). */
  written: string[];
  /** The params of its `initialize`. */
  initialize?: unknown;
  /** Ends it as a lost daemon does: no more frames, then `connection_lost`. */
  lose(): void;
  /** Pushes a frame (a notification or a server request) to the relay. */
  push(message: unknown): void;
  /**
   * Ends it with the channel's own error (a frame past the bound): pending
   * pings answer false first, as a real channel's do, then its frames throw.
   */
  breakWith(error: RelayError): void;
  /**
   * What a ping answers: true (pong), false (the channel is gone), never, or
   * `"held"`: not until the channel ends (false then).
   */
  ping: boolean | "never" | "held";
  /** Pings the relay sent on it. */
  pings: number;
  /** Whether the relay closed or killed it. */
  closed: boolean;
}

/** The fake daemon: hand {@linkcode FakeDaemon.dial} to a `DaemonConnection`. */
export class FakeDaemon {
  /** Requests held unanswered, of every connection. */
  readonly held: { id: number; method: string; link: FakeLink }[] = [];
  /** Every connection dialled, in order. */
  readonly links: FakeLink[] = [];
  #arrived: (() => void)[] = [];
  /** Whether the next dials answer `initialize` with an error. */
  failInitialize = false;
  /** Whether the next dials answer `initialize` at all. */
  answerInitialize = true;
  /** Whether pings are supported at all (a transport without `ping`). */
  pings = true;

  /** Dials made. */
  get dials(): number {
    return this.links.length;
  }

  /** A new connection. */
  dial = (): Promise<Dialed> => {
    const frames: string[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    let failure: RelayError | undefined;
    const heldPings: ((alive: boolean) => void)[] = [];
    const push = (message: unknown) => {
      frames.push(JSON.stringify(message));
      wake?.();
    };
    const end = () => {
      ended = true;
      wake?.();
    };
    const lose = () => {
      // Its held requests will never be answered.
      for (let i = this.held.length - 1; i >= 0; i--) {
        if (this.held[i].link === link) this.held.splice(i, 1);
      }
      end();
    };
    const breakWith = (error: RelayError) => {
      failure = error;
      for (const done of heldPings.splice(0)) done(false);
      end();
    };
    const link: FakeLink = {
      written: [],
      lose,
      breakWith,
      push,
      ping: true,
      pings: 0,
      closed: false,
    };
    this.links.push(link);
    const transport: FrameTransport = {
      write: (frame) => {
        const m = JSON.parse(frame);
        link.written.push(m.method ?? `answer ${m.id}`);
        if (m.method === "initialize") {
          link.initialize = m.params;
          if (!this.answerInitialize) return Promise.resolve();
          push(
            this.failInitialize
              ? { id: m.id, error: { code: -32603, message: "not ready" } }
              : { id: m.id, result: { userAgent: "fake/0.1.0" } },
          );
        } else if (m.method !== undefined && m.id !== undefined) {
          this.held.push({ id: m.id, method: m.method, link });
          for (const fn of this.#arrived.splice(0)) fn();
        }
        return Promise.resolve();
      },
      frames: async function* () {
        while (true) {
          const next = frames.shift();
          if (next !== undefined) {
            yield next;
            continue;
          }
          if (failure) throw failure;
          if (ended) return;
          await new Promise<void>((r) => (wake = r));
          wake = undefined;
        }
      },
      closed: () => Promise.resolve(new RelayError("connection_lost", "fake closed")),
      get failure() {
        return failure;
      },
      ...(this.pings
        ? {
          ping: () => {
            link.pings++;
            if (link.ping === "never") return new Promise<boolean>(() => {});
            if (link.ping === "held") {
              return new Promise<boolean>((resolve) => heldPings.push(resolve));
            }
            return Promise.resolve(link.ping);
          },
        }
        : {}),
    };
    const close = () => {
      link.closed = true;
      end();
      return Promise.resolve();
    };
    return Promise.resolve({ transport, close, kill: close });
  };

  /** Resolves once `n` requests are held. */
  async heldCount(n: number): Promise<void> {
    while (this.held.length < n) await new Promise<void>((r) => this.#arrived.push(r));
  }

  /** Answers every held request (`thread/list`: an empty page). */
  releaseAll(): void {
    const page = { data: [], nextCursor: null };
    for (const { id, link } of this.held.splice(0)) link.push({ id, result: page });
  }
}
