/**
 * A {@linkcode Session} for unit tests of operations: each method is answered
 * by a handler (given the params and which call of that method it is, from 1),
 * its raw answer parsed as the backends parse it (`typedCall`), and every call
 * recorded.
 *
 * @example
 * ```ts
 * const s = scriptedSession({ "thread/list": () => ({ data: [], nextCursor: null }) });
 * await s.session.call("thread/list", {});
 * s.methods(); // ["thread/list"]
 * ```
 * @module
 */

import { type Session, typedCall } from "../src/connect/connection.ts";

/** Params as a handler sees them. */
export type Params = Record<string, unknown>;

/** Answers one call: a raw result, or throws (the call then rejects with that error). */
export type Handler = (params: Params, n: number) => unknown;

/** A scripted session and what was sent through it. */
export interface Scripted {
  session: Session;
  /** Every call: method and params, in order. */
  calls: [string, Params][];
  /** The methods called, in order. */
  methods(): string[];
}

/** A session answering each method with its handler; a method without one rejects. */
export function scriptedSession(
  handlers: Record<string, Handler>,
  signal: AbortSignal = new AbortController().signal,
): Scripted {
  const calls: [string, Params][] = [];
  const counts = new Map<string, number>();
  const session: Session = {
    call: typedCall((method, params) => {
      calls.push([method, params as Params]);
      const n = (counts.get(method) ?? 0) + 1;
      counts.set(method, n);
      try {
        const handler = handlers[method];
        if (!handler) throw new Error(`unexpected ${method}`);
        return Promise.resolve(handler(params as Params, n));
      } catch (error) {
        return Promise.reject(error);
      }
    }),
    signal,
    remainingMs: () => 20_000,
  };
  return { session, calls, methods: () => calls.map(([m]) => m) };
}
